import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH, else Debian's `chromium` package (which
 * `.ci/run` installs when missing), else another Chromium or Chrome on the PATH. undefined when
 * there is none, and the browser tests are skipped with that message.
 */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    try {
      const path = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (path) return path;
    } catch {
      // not on the PATH: try the next name
    }
  }
  return undefined;
}

export const NO_CHROMIUM =
  'Browser tests skipped: no Chromium found. Install it (`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM_PATH.';

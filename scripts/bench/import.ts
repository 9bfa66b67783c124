import { runJsonChild } from './child-json.ts';
import type { ImportChildInput } from './import-child.ts';
import type { ImportSection } from './import-feed.ts';

/** Runs the section's child process on `input`; its answer is the section. */
export function measureImport(input: ImportChildInput): Promise<ImportSection> {
  return runJsonChild<ImportSection>('import-child.ts', input);
}

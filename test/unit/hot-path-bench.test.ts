import { describe, expect, it } from 'vitest';
import { type LoadFigures, medianFigures, medianRatios } from '../../scripts/bench/sections/load.ts';

const run = (throughput: number, p50: number, p99: number, failures = 0): LoadFigures => ({
  requests: throughput * 8,
  throughput,
  p50,
  p99,
  failures,
});

describe('hot-path bench figures', () => {
  it('takes each ratio against the floor of the same run, then the median', () => {
    // Prepare: the machine got slower in run 2, for the floor and the row alike
    const floors = [run(100, 10, 40), run(50, 20, 80), run(100, 10, 40)];
    const rows = [run(80, 12, 60), run(40, 24, 120), run(60, 15, 40)];
    // Act
    const ratios = medianRatios(rows, floors);
    // Assess: run 2's ratios equal run 1's, so the medians are those
    expect(ratios).toEqual({ p50: 1.2, p99: 1.5, throughput: 0.8 });
  });

  it('reports per-metric medians and the worst run’s failures', () => {
    const figures = medianFigures([run(100, 10, 40), run(50, 30, 90, 2), run(70, 20, 50)]);
    expect(figures).toMatchObject({ throughput: 70, p50: 20, p99: 50, failures: 2 });
  });
});

/**
 * What machine a benchmark ran on, recorded beside every result.
 */
import { cpus, loadavg, totalmem } from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
  /**
   * The 5-minute load average when the suite finished: how much other work shared the cores (about the
   * core count or more means the figures measured a busy machine). Absent from older results.
   */
  loadAverage?: number;
}

/** The current machine. */
export const machine = (): Machine => {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: (list[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverage: Math.round((loadavg()[1] ?? 0) * 10) / 10,
  };
};

/** A short label: `2 × Intel Xeon …, 23 GiB, Node v24.x, load 1.2`. */
export const machineLabel = (value: Machine): string =>
  `${value.cpus} × ${value.cpuModel}, ${value.memoryGiB} GiB, Node ${value.node}${value.loadAverage === undefined ? '' : `, load ${value.loadAverage}`}`;

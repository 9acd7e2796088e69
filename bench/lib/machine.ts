/**
 * What machine a benchmark ran on, recorded beside every result.
 */
import { cpus, totalmem } from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
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
  };
};

/** A short label: `2 × Intel Xeon …, 23 GiB, Node v24.x`. */
export const machineLabel = (value: Machine): string =>
  `${value.cpus} × ${value.cpuModel}, ${value.memoryGiB} GiB, Node ${value.node}`;

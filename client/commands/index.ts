// Every command of `data-import`, in the order the usage lists them.
import type { Command } from '../cli/command';
import { reconcileCommand } from './reconcile';
import { reportCommand } from './report';
import { resumeCommand } from './resume';
import { sendCommand } from './send';
import { validateCommand } from './validate';

export const COMMANDS: readonly Command[] = [
  sendCommand,
  resumeCommand,
  validateCommand,
  reconcileCommand,
  reportCommand,
];

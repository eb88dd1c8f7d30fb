/** Lua scripts and functions: EVAL*, SCRIPT, FUNCTION, FCALL* (docs/scripting.md). */
import type { CommandSpec } from '../spec';
import { evalCmd, evalRo, evalsha, evalshaRo } from './eval';
import { fcall, fcallRo } from './fcall';
import { functionCmd } from './function';
import { script } from './script';

export const kScriptingCommands: CommandSpec[] = [evalCmd, evalsha, evalRo, evalshaRo, script, functionCmd, fcall, fcallRo];

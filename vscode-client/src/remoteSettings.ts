/**
 * Finds a `tfphi.server.command` that VS Code ignores in a remote window.
 *
 * The setting is machine-overridable: in a window connected to another machine (Remote-SSH,
 * containers, WSL, code-server), VS Code takes it only from the Remote settings or the
 * workspace, not from the User settings, and says nothing. The extension host cannot ask VS
 * Code for the dropped value, but when the User settings file is on the extension host's
 * machine (code-server keeps it next to the extension's global storage) it can read it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, type ParseError } from 'jsonc-parser';
import type { IgnoredSetting } from './serverCommand';

/** `<user data>/User/settings.json`, from `<user data>/User/globalStorage/<extension id>`. */
export function userSettingsPath(globalStoragePath: string): string {
  return path.join(path.dirname(path.dirname(globalStoragePath)), 'settings.json');
}

/** The value of `tfphi.server.command` in a settings.json text (JSON with comments), if any. */
export function serverCommandIn(text: string): unknown {
  const errors: ParseError[] = [];
  const settings: unknown = parse(text, errors, { allowTrailingComma: true });
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
    return undefined;
  }
  const value = (settings as Record<string, unknown>)['tfphi.server.command'];
  return Array.isArray(value) && value.length > 0 ? value : undefined;
}

export function findIgnoredServerCommand(globalStoragePath: string, remoteName: string): IgnoredSetting | undefined {
  const file = userSettingsPath(globalStoragePath);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const value = serverCommandIn(text);
  return value === undefined ? undefined : { value, where: `the User settings (${file})`, remoteName };
}

/**
 * The `tfphi` settings and the initializationOptions sent to the server.
 *
 * Pure: no `vscode` import. The extension reads the configuration into a
 * {@link RawSettings} object and {@link settingsToInitOptions} turns it into
 * exactly the shape the server decodes (the same keys as `.tfphi.toml`).
 */

export const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const DEFAULT_DEPTH = 20;
export const DEFAULT_BRANCHES = 16;
/** Severity of a field entry that does not name one (the `unbounded-field` default). */
export const DEFAULT_FIELD_SEVERITY: Severity = 'warning';

/** The settings as read from VS Code; every value may be missing or malformed. */
export interface RawSettings {
  limits?: { depth?: unknown; branches?: unknown };
  fields?: unknown;
  diagnostics?: { severity?: unknown };
  inlayHints?: { enabled?: unknown };
  ignore?: unknown;
}

export interface FieldOptions {
  universe: (string | number | boolean)[];
  severity: Severity;
}

export interface InitOptions {
  limits: { depth: number; branches: number };
  fields: Record<string, FieldOptions>;
  diagnostics: { severity: Severity | null };
  inlayHints: { enabled: boolean };
  ignore: string[];
}

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

function positiveInt(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) {
    return value;
  }
  return fallback;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `"resource_type.field"`: a resource type, a dot, then a (possibly dotted) field path. */
export function isFieldKey(key: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)+$/.test(key);
}

/** A universe holds primitive values: strings, finite numbers, booleans (what the server accepts). */
function isUniverseValue(value: unknown): value is string | number | boolean {
  return (
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
  );
}

function normalizeFields(value: unknown): Record<string, FieldOptions> {
  const out: Record<string, FieldOptions> = {};
  if (!isPlainObject(value)) {
    return out;
  }
  for (const key of Object.keys(value).sort()) {
    const entry = value[key];
    if (!isFieldKey(key) || !isPlainObject(entry)) {
      continue;
    }
    const universe = Array.isArray(entry.universe) ? entry.universe.filter(isUniverseValue) : [];
    const severity = isSeverity(entry.severity) ? entry.severity : DEFAULT_FIELD_SEVERITY;
    out[key] = { universe, severity };
  }
  return out;
}

function normalizeIgnore(value: unknown): string[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return value.filter((v): v is string => typeof v === 'string' && v.trim().length > 0);
}

/**
 * Maps the `tfphi` settings to the server's initializationOptions:
 * `{limits: {depth, branches}, fields, diagnostics: {severity}, inlayHints: {enabled}, ignore}`.
 * Malformed values fall back to their defaults; unknown fields are dropped.
 */
export function settingsToInitOptions(settings: RawSettings | undefined): InitOptions {
  const s = settings ?? {};
  const severity = s.diagnostics?.severity;
  const enabled = s.inlayHints?.enabled;
  return {
    limits: {
      depth: positiveInt(s.limits?.depth, DEFAULT_DEPTH),
      branches: positiveInt(s.limits?.branches, DEFAULT_BRANCHES),
    },
    fields: normalizeFields(s.fields),
    diagnostics: { severity: isSeverity(severity) ? severity : null },
    inlayHints: { enabled: typeof enabled === 'boolean' ? enabled : true },
    ignore: normalizeIgnore(s.ignore),
  };
}

/** Minimal view of `WorkspaceConfiguration.get`, so reading stays testable. */
export interface ConfigReader {
  get(section: string): unknown;
}

/** Reads the `tfphi` configuration section (dotted keys) into {@link RawSettings}. */
export function readRawSettings(config: ConfigReader): RawSettings {
  return {
    limits: { depth: config.get('limits.depth'), branches: config.get('limits.branches') },
    fields: config.get('fields'),
    diagnostics: { severity: config.get('diagnostics.severity') },
    inlayHints: { enabled: config.get('inlayHints.enabled') },
    ignore: config.get('ignore'),
  };
}

/**
 * The parts of the `tfphi` section that the server reads, passed as
 * `synchronize.configurationSection`. vscode-languageclient then sends
 * `{"tfphi": {"limits": ..., "fields": ..., "diagnostics": ..., "inlayHints": ..., "ignore": ...}}`
 * in `workspace/didChangeConfiguration`: the keys of {@link InitOptions}, and
 * not the client-only keys (`server.command`, `interpreter`, `trace.server`)
 * that the server's strict decoder would report as unknown.
 */
export const SERVER_SETTING_SECTIONS: readonly string[] = [
  'tfphi.limits',
  'tfphi.fields',
  'tfphi.diagnostics',
  'tfphi.inlayHints',
  'tfphi.ignore',
];

/** Settings whose change needs a new server process rather than didChangeConfiguration. */
export const RESTART_SETTINGS: readonly string[] = ['tfphi.server.command', 'tfphi.interpreter'];

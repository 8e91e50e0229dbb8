/**
 * tfphi VS Code extension: starts the tfphi language server, shows its state
 * in the status bar, restarts it on crash with back-off, and opens the
 * server's trace / specialization answers as read-only previews.
 *
 * The decisions live in pure modules (serverCommand, settings, preview,
 * backoff, status) that are unit-tested without VS Code; this file only wires
 * them to the VS Code and vscode-languageclient APIs.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandler,
  type ErrorHandlerResult,
  type Executable,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  RevealOutputChannelOn,
  State,
} from 'vscode-languageclient/node';
import { RestartBackoff } from './backoff';
import { HASHICORP_TERRAFORM, highlightingSetting, semanticTokensEnabled } from './highlighting';
import { asTraceGraph, graphPage } from './traceGraph';
import { nodeProbes } from './probes';
import {
  buildPreview,
  type CursorLocation,
  fillCommandArgs,
  isPreviewCommand,
  PREVIEW_SCHEME,
  type PreviewDocument,
} from './preview';
import { findIgnoredServerCommand } from './remoteSettings';
import { resolveServerCommand } from './serverCommand';
import { readRawSettings, RESTART_SETTINGS, SERVER_SETTING_SECTIONS, settingsToInitOptions } from './settings';
import { type ServerState, statusPresentation } from './status';

const CLIENT_ID = 'tfphi';
const CLIENT_NAME = 'tfphi';
const TERRAFORM_LANGUAGES = ['terraform', 'terraform-vars'];

let extension: TfphiExtension | undefined;

/**
 * The language client, but its own error notifications go to the output
 * channel only: the extension shows one notification of its own (server not
 * found, failed to start, keeps crashing) instead of one per restart attempt.
 */
class TfphiLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, _showNotification?: boolean | 'force'): void {
    super.error(message, data, false);
  }
}

class PreviewContentProvider implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, content: string): void {
    this.contents.set(uri.toString(), content);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class TfphiExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** Bumped on every manual restart; stale crash handlers then stand down. */
  private generation = 0;
  private readonly backoff = new RestartBackoff();
  private readonly output: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private readonly previews = new PreviewContentProvider();
  private readonly disposables: { dispose(): unknown }[] = [];
  private failed = false;
  /** True while the close handler waits to restart a crashed server. */
  private restartPending = false;
  private serverDescription = '';

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('tfphi');
    this.status = vscode.window.createStatusBarItem('tfphi.status', vscode.StatusBarAlignment.Left, 0);
    this.status.name = 'tfphi';
    this.status.command = 'tfphi.showOutput';
    this.disposables.push(
      this.output,
      this.status,
      this.previews,
      vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, this.previews),
      vscode.commands.registerCommand('tfphi.restartServer', () => this.restart()),
      vscode.commands.registerCommand('tfphi.showOutput', () => {
        this.output.show(true);
      }),
      vscode.commands.registerCommand('tfphi.showTraceGraph', () => this.showTraceGraph()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) {
          this.log('Server command settings changed: restarting the server.');
          void this.restart();
        }
      }),
    );
    this.setState('stopped');
    this.status.show();
  }

  log(message: string): void {
    this.output.appendLine(`[${new Date().toISOString()}] ${message}`);
  }

  setState(state: ServerState, detail?: string): void {
    const p = statusPresentation(state, detail ?? this.serverDescription);
    this.status.text = p.text;
    this.status.tooltip = p.tooltip;
    this.status.backgroundColor = p.background === undefined ? undefined : new vscode.ThemeColor(p.background);
  }

  async start(): Promise<void> {
    const generation = this.generation;
    this.failed = false;
    this.setState('starting');
    const config = vscode.workspace.getConfiguration('tfphi');
    const resolution = resolveServerCommand(
      {
        serverCommand: config.get('server.command'),
        interpreter: config.get('interpreter'),
        extensionPath: this.context.extensionPath,
        platform: process.platform,
        env: process.env,
        remoteName: vscode.env.remoteName,
        ignoredServerCommand: this.ignoredServerCommand(config),
      },
      nodeProbes,
    );
    this.log('Looking for the tfphi server:');
    for (const attempt of resolution.attempts) {
      this.log(`  ${attempt}`);
    }
    if (!resolution.ok) {
      this.failed = true;
      this.serverDescription = 'no server found';
      this.setState('error');
      this.log(resolution.message);
      void this.notifyNotFound(resolution.message);
      return;
    }
    this.serverDescription = resolution.description;
    this.log(`Starting ${resolution.description}`);

    // No `transport`: the client then talks over stdio without appending
    // `--stdio` to the command line (`tfphi serve` uses stdio by default).
    const executable: Executable = {
      command: resolution.command,
      args: resolution.args,
      options: { env: { ...process.env, ...resolution.env } },
    };
    const client = new TfphiLanguageClient(CLIENT_ID, CLIENT_NAME, executable, this.clientOptions(generation));
    this.client = client;
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Starting) {
        this.setState('starting');
      } else if (e.newState === State.Running) {
        this.failed = false;
        this.setState('running');
      } else {
        this.setState(this.failed ? 'error' : 'stopped');
      }
    });
    try {
      await client.start();
    } catch (error) {
      if (this.client !== client) {
        return;
      }
      this.failed = true;
      this.setState('error');
      this.log(`The server failed to start: ${errorText(error)}`);
      // When the process exited, the close handler restarts it with back-off
      // (and tells the user if it gives up); notify only if nothing will.
      await sleep(750);
      if (this.client === client && !this.restartPending && client.state === State.Stopped) {
        void this.notifyStartFailed(errorText(error));
      }
    }
  }

  /**
   * In a remote window VS Code drops `tfphi.server.command` from the local User settings (the
   * setting is machine-overridable). When that file is on this machine (code-server, or the
   * remote's own user folder), find the dropped value so that the output can say why.
   */
  private ignoredServerCommand(config: vscode.WorkspaceConfiguration) {
    const remoteName = vscode.env.remoteName;
    const inspected = config.inspect('server.command');
    const applied = [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue];
    if (remoteName === undefined || applied.some((v) => Array.isArray(v) && v.length > 0)) {
      return undefined;
    }
    return findIgnoredServerCommand(this.context.globalStorageUri.fsPath, remoteName);
  }

  private clientOptions(generation: number): LanguageClientOptions {
    const config = vscode.workspace.getConfiguration('tfphi');
    return {
      documentSelector: TERRAFORM_LANGUAGES.flatMap((language) => [
        { scheme: 'file', language },
        { scheme: 'untitled', language },
      ]),
      synchronize: {
        configurationSection: [...SERVER_SETTING_SECTIONS],
        fileEvents: vscode.workspace.createFileSystemWatcher(
          '**/{*.tf,*.tf.json,*.tofu,*.tofu.json,*.tfvars,*.tfvars.json,*.hcl,.tfphi.toml,.terraform/modules/modules.json}',
        ),
      },
      initializationOptions: settingsToInitOptions(readRawSettings(config)),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      diagnosticCollectionName: 'tfphi',
      errorHandler: this.errorHandler(generation),
      initializationFailedHandler: (error: unknown) => {
        this.failed = true;
        this.log(`The server failed to initialize: ${errorText(error)}`);
        this.setState('error');
        return false;
      },
      middleware: this.middleware(),
    };
  }

  private errorHandler(generation: number): ErrorHandler {
    return {
      error: (error: Error, _message: unknown, count: number | undefined): ErrorHandlerResult => {
        this.log(`Connection error (${count ?? 1}): ${error.message}`);
        if (count !== undefined && count <= 3) {
          return { action: ErrorAction.Continue, handled: true };
        }
        return { action: ErrorAction.Shutdown, handled: true };
      },
      closed: async (): Promise<CloseHandlerResult> => {
        if (generation !== this.generation) {
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const delay = this.backoff.onCrash(Date.now());
        if (delay === undefined) {
          this.failed = true;
          this.log(`The server stopped ${this.backoff.recentCrashes} times in a short while; not restarting it.`);
          this.setState('error', 'crashed repeatedly');
          void vscode.window
            .showErrorMessage(
              'tfphi: the language server keeps crashing and was not restarted. See the output for details.',
              'Show Output',
              'Restart Server',
            )
            .then((choice) => {
              if (choice === 'Show Output') {
                this.output.show(true);
              } else if (choice === 'Restart Server') {
                void this.restart();
              }
            });
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        this.log(`The server stopped; restarting it in ${delay / 1000}s.`);
        this.setState('starting', `restarting in ${delay / 1000}s`);
        this.restartPending = true;
        try {
          await sleep(delay);
        } finally {
          this.restartPending = false;
        }
        if (generation !== this.generation) {
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        return { action: CloseAction.Restart, handled: true };
      },
    };
  }

  /** tfphi's colours, unless the user or HashiCorp's Terraform extension says otherwise. */
  private highlighting(): boolean {
    const setting = highlightingSetting(vscode.workspace.getConfiguration('tfphi').get('semanticHighlighting'));
    return semanticTokensEnabled(setting, vscode.extensions.getExtension(HASHICORP_TERRAFORM) !== undefined);
  }

  private middleware(): Middleware {
    return {
      // Returning nothing leaves the tokens to another provider (or to the TextMate grammar).
      provideDocumentSemanticTokens: (document, token, next) => (this.highlighting() ? next(document, token) : undefined),
      provideDocumentSemanticTokensEdits: (document, previousResultId, token, next) =>
        this.highlighting() ? next(document, previousResultId, token) : undefined,
      provideDocumentRangeSemanticTokens: (document, range, token, next) =>
        this.highlighting() ? next(document, range, token) : undefined,
      executeCommand: async (command: string, args: unknown[], next): Promise<unknown> => {
        if (!isPreviewCommand(command)) {
          return (await next(command, args)) as unknown;
        }
        const filled = fillCommandArgs(args, this.cursor());
        if (filled === undefined) {
          void vscode.window.showInformationMessage(
            'tfphi: open a Terraform file and put the cursor on a field, then run the command again.',
          );
          return null;
        }
        let result: unknown = null;
        try {
          result = (await next(command, filled)) as unknown;
        } catch (error) {
          this.log(`${command} failed: ${errorText(error)}`);
          result = null;
        }
        const outcome = buildPreview(command, result);
        if (outcome.kind === 'empty') {
          void vscode.window.showInformationMessage(outcome.message);
          return null;
        }
        await this.openPreview(outcome.document);
        return result;
      },
      workspace: {
        // Answer `workspace/configuration` for the `tfphi` section in the
        // same normalized shape as the initializationOptions.
        configuration: async (params, token, next) => {
          const answer: unknown = await next(params, token);
          if (!Array.isArray(answer)) {
            return answer as never;
          }
          return params.items.map((item, i) => {
            if (item.section !== 'tfphi') {
              return answer[i] as unknown;
            }
            const scope = item.scopeUri !== undefined ? vscode.Uri.parse(item.scopeUri) : undefined;
            return settingsToInitOptions(readRawSettings(vscode.workspace.getConfiguration('tfphi', scope)));
          });
        },
      },
    };
  }

  private cursor(): CursorLocation | undefined {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || !TERRAFORM_LANGUAGES.includes(editor.document.languageId)) {
      return undefined;
    }
    const uri = this.client?.code2ProtocolConverter.asUri(editor.document.uri) ?? editor.document.uri.toString();
    const active = editor.selection.active;
    return { uri, line: active.line, character: active.character };
  }

  private async openPreview(preview: PreviewDocument): Promise<void> {
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${preview.fileName}` });
    this.previews.set(uri, preview.content);
    if (preview.languageId === 'markdown') {
      try {
        await vscode.commands.executeCommand('markdown.showPreview', uri);
        return;
      } catch (error) {
        this.log(`markdown.showPreview failed, opening the text instead: ${errorText(error)}`);
      }
    }
    let document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== preview.languageId) {
      document = await vscode.languages.setTextDocumentLanguage(document, preview.languageId);
    }
    await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  /** *tfphi: Show Trace Graph*: asks the server for the graph at the cursor and draws it in a webview. */
  private async showTraceGraph(): Promise<void> {
    const cursor = this.cursor();
    if (cursor === undefined) {
      void vscode.window.showInformationMessage(
        'tfphi: open a Terraform file and put the cursor on a field, then run the command again.',
      );
      return;
    }
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      void vscode.window.showInformationMessage('tfphi: the language server is not running (see tfphi: Show Output).');
      return;
    }
    let answer: unknown = null;
    try {
      answer = await client.sendRequest('tfphi/traceGraph', {
        textDocument: { uri: cursor.uri },
        position: { line: cursor.line, character: cursor.character },
      });
    } catch (error) {
      this.log(`tfphi/traceGraph failed: ${errorText(error)}`);
    }
    const graph = asTraceGraph(answer);
    if (graph === undefined) {
      void vscode.window.showInformationMessage(
        'tfphi: nothing to trace at the cursor; put it on a field, a module argument, an output or a reference.',
      );
      return;
    }
    const folder = vscode.window.activeTextEditor
      ? vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri)
      : undefined;
    const panel = vscode.window.createWebviewPanel('tfphi.traceGraph', graph.title, vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, 'out')],
    });
    const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'out', 'traceGraphView.js'));
    const nonce = Array.from({ length: 32 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
    panel.webview.html = graphPage(graph, script.toString(), panel.webview.cspSource, nonce);
    panel.webview.onDidReceiveMessage(async (message: unknown) => {
      // A click on a node: open "file:line" (relative to the workspace folder) in the editor.
      if (typeof message !== 'object' || message === null || folder === undefined) {
        return;
      }
      const location = (message as { location?: unknown }).location;
      const found = typeof location === 'string' ? /^(.*?):(\d+)(?::\d+)?$/.exec(location) : null;
      if (found === null) {
        return;
      }
      const uri = vscode.Uri.joinPath(folder.uri, found[1]);
      const line = Math.max(Number(found[2]) - 1, 0);
      await vscode.window.showTextDocument(uri, {
        viewColumn: vscode.ViewColumn.One,
        selection: new vscode.Range(line, 0, line, 0),
      });
    });
  }

  private async notifyNotFound(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Show Output', 'Open Settings');
    if (choice === 'Show Output') {
      this.output.show(true);
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'tfphi.server.command');
    }
  }

  private async notifyStartFailed(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(
      `tfphi: the language server failed to start (${message}).`,
      'Show Output',
      'Restart Server',
    );
    if (choice === 'Show Output') {
      this.output.show(true);
    } else if (choice === 'Restart Server') {
      await this.restart();
    }
  }

  async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      return;
    }
    try {
      await client.dispose();
    } catch (error) {
      this.log(`Stopping the server: ${errorText(error)}`);
    }
  }

  async restart(): Promise<void> {
    this.generation += 1;
    this.backoff.reset();
    this.log('Restarting the server.');
    await this.stopClient();
    this.setState('stopped');
    await this.start();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }
}

export function activate(context: vscode.ExtensionContext): void {
  extension = new TfphiExtension(context);
  context.subscriptions.push(extension);
  // Not awaited: activation must not wait for the server process.
  void extension.start();
}

export async function deactivate(): Promise<void> {
  const current = extension;
  extension = undefined;
  if (current !== undefined) {
    await current.stopClient();
  }
}

/** What the status bar item shows for each server state. Pure. */

export type ServerState = 'starting' | 'running' | 'stopped' | 'error';

export interface StatusPresentation {
  text: string;
  tooltip: string;
  /** ThemeColor id for the background, if any. */
  background?: 'statusBarItem.errorBackground' | 'statusBarItem.warningBackground';
}

export function statusPresentation(state: ServerState, detail?: string): StatusPresentation {
  const suffix = detail !== undefined && detail.length > 0 ? `\n${detail}` : '';
  switch (state) {
    case 'starting':
      return { text: '$(sync~spin) tfphi', tooltip: `tfphi: server starting${suffix}` };
    case 'running':
      return { text: '$(check) tfphi', tooltip: `tfphi: server running${suffix}` };
    case 'stopped':
      return {
        text: '$(circle-slash) tfphi',
        tooltip: `tfphi: server stopped${suffix}\nClick to show the output.`,
        background: 'statusBarItem.warningBackground',
      };
    case 'error':
      return {
        text: '$(error) tfphi',
        tooltip: `tfphi: server error${suffix}\nClick to show the output.`,
        background: 'statusBarItem.errorBackground',
      };
  }
}

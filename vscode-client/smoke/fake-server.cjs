// A stand-in for `tfphi serve` in the smoke test: a tiny LSP server over
// stdio that records what it receives and answers the tfphi commands.
'use strict';
const fs = require('node:fs');

const logFile = process.env.FAKE_TFPHI_LOG;
function record(entry) {
  if (logFile) {
    fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
  }
}

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function handle(msg) {
  record({ method: msg.method, params: msg.params, argv: process.argv.slice(2) });
  switch (msg.method) {
    case 'initialize':
      send({
        id: msg.id,
        result: {
          capabilities: {
            textDocumentSync: 2,
            executeCommandProvider: { commands: ['tfphi.showTrace', 'tfphi.previewSpecialization'] },
          },
          serverInfo: { name: 'fake-tfphi', version: '0.0.0' },
        },
      });
      break;
    case 'workspace/executeCommand': {
      const [target] = msg.params.arguments ?? [];
      let result = null;
      if (process.env.FAKE_TFPHI_CRASH_ON_COMMAND) {
        process.exit(3);
      }
      if (target && target.position && target.position.line === 99) {
        result = null; // nothing at this cursor
      } else if (msg.params.command === 'tfphi.showTrace') {
        result = { title: 'aws_db_instance.app.engine_version', markdown: `| value | condition |\n|---|---|\n| "15.4" | ${JSON.stringify(target)} |` };
      } else if (msg.params.command === 'tfphi.previewSpecialization') {
        result = {
          title: 'engine_version',
          hcl: 'module "db_v15_4" {\n  count = 1\n}\n',
          provenance: [{ module: 'db_v15_4', branch_value: '15.4' }],
        };
      }
      send({ id: msg.id, result });
      break;
    }
    case 'shutdown':
      send({ id: msg.id, result: null });
      break;
    case 'exit':
      process.exit(0);
      break;
    default:
      if (msg.id !== undefined && msg.method !== undefined) {
        send({ id: msg.id, error: { code: -32601, message: `not implemented: ${msg.method}` } });
      }
  }
}

let buffer = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const headerEnd = buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) {
      return;
    }
    const header = buffer.subarray(0, headerEnd).toString('ascii');
    const match = /Content-Length: (\d+)/i.exec(header);
    const length = match ? Number(match[1]) : 0;
    if (buffer.length < headerEnd + 4 + length) {
      return;
    }
    const body = buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
    buffer = buffer.subarray(headerEnd + 4 + length);
    handle(JSON.parse(body));
  }
});
process.stdin.on('end', () => process.exit(0));

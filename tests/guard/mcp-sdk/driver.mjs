// An agent's MCP side on the official SDK's Client, driven line by line by a test: it starts the
// server it is given over stdio (the test gives `verity guard … -- node ledger-server.mjs`), then
// reads one JSON command a line from stdin and writes one JSON answer a line to stdout:
//   {"op":"list"}                                     -> {"tools":[…]}
//   {"op":"call","name":…,"arguments":{…},"timeout":ms,"conversation":id?}
//                                                     -> {"result":{…}} or {"error":{code,message}}
//   {"op":"pid"}                                      -> {"pid": the server process (the guard)}
//   {"op":"close"}                                    -> {"closed":true}, then exits
// argv: COMMAND ARGS… of the server, or --url URL of a Streamable HTTP server.
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [command, ...args] = process.argv.slice(2);
const transport = command === '--url'
  ? new StreamableHTTPClientTransport(new URL(args[0]))
  : new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'verity-test-agent', version: '1.0.0' });
await client.connect(transport);

const say = (value) => process.stdout.write(JSON.stringify(value) + '\n');
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  try {
    if (command.op === 'list') {
      say(await client.listTools());
    } else if (command.op === 'call') {
      const params = { name: command.name, arguments: command.arguments ?? {} };
      if (command.conversation) params._meta = { conversationId: command.conversation };
      say({ result: await client.callTool(params, undefined, { timeout: command.timeout ?? 10000 }) });
    } else if (command.op === 'pid') {
      say({ pid: transport.pid ?? null });
    } else if (command.op === 'close') {
      await client.close();
      say({ closed: true });
      process.exit(0);
    }
  } catch (error) {
    say({ error: { code: error.code ?? null, message: String(error.message ?? error) } });
  }
}
await client.close();

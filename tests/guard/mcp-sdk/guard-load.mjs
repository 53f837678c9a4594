// Load for `verity-bench guard`: the SDK Client calls ledger-server.mjs (over stdio) at a steady
// rate, four reads to one write (each write a refund of its own order, so none is held), directly
// or through `verity guard`, and prints one JSON line: the calls' latencies (ms) and, through the
// guard, its resident memory sampled every second (kB). Every twenty calls are one conversation.
//   node guard-load.mjs --rate 200 --seconds 20 [--guard VERITY --db DB]
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const rate = Number(option('--rate', 200));
const seconds = Number(option('--seconds', 20));
const verity = option('--guard', null);
const db = option('--db', null);
const env = { ...process.env, LEDGER: '/dev/null' };
const transport = verity
  ? new StdioClientTransport({ command: verity, args: ['guard', '--db', db, '--', 'node', 'ledger-server.mjs'], env, stderr: process.env.GUARD_STDERR ? 'inherit' : 'ignore' })
  : new StdioClientTransport({ command: 'node', args: ['ledger-server.mjs'], env, stderr: 'ignore' });
const client = new Client({ name: 'verity-bench', version: '1.0.0' });
await client.connect(transport);
await client.listTools();

const rss = [];
const sample = () => {
  try {
    const status = fs.readFileSync(`/proc/${transport.pid}/status`, 'utf8');
    rss.push(Number(/VmRSS:\s+(\d+)/.exec(status)[1]));
  } catch { /* gone */ }
};
const sampler = verity ? setInterval(sample, 1000) : null;
if (verity) sample();

const latencies = [];
let errors = 0;
const total = Math.round(rate * seconds);
const start = performance.now();
const pending = [];
for (let i = 0; i < total; ++i) {
  const due = start + (i * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const write = i % 5 === 4;
  const params = write
    ? { name: 'issue_refund', arguments: { order_id: `B-${i}`, item_id: 'X', amount_cents: 100 + i } }
    : { name: 'get_order', arguments: { order_id: `B-${i % 50}` } };
  // A support conversation makes a few dozen calls: twenty each here, a ticket each.
  params._meta = { conversationId: `bench-${Math.floor(i / 20)}` };
  const sent = performance.now();
  pending.push(client.callTool(params, undefined, { timeout: 30000 }).then(
    (result) => { if (result.isError) errors += 1; latencies.push({ ms: performance.now() - sent, write }); },
    () => { errors += 1; }));
}
await Promise.all(pending);
if (sampler) clearInterval(sampler);
if (verity) sample();
await client.close();
const ms = (list) => list.map((l) => l.ms).sort((a, b) => a - b);
const at = (sorted, q) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null;
const all = ms(latencies);
const writes = ms(latencies.filter((l) => l.write));
console.log(JSON.stringify({
  calls: latencies.length, errors, seconds: (performance.now() - start) / 1000,
  p50: at(all, 0.5), p99: at(all, 0.99), writeP50: at(writes, 0.5), writeP99: at(writes, 0.99), rss,
}));

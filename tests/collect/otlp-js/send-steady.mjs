// A steady stream of execute_tool spans through the OTLP/HTTP protobuf exporter with a batch
// processor, as an agent in production sends them, for a receiver that restarts meanwhile.
//
//   node send-steady.mjs RECEIVER_URL CONVERSATION_ID COUNT INTERVAL_MS
//
// Prints "span N" as each span ends (so a test can time a restart), and exits 0 once every
// export was taken, 1 with the reasons otherwise.
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExportResultCode } from '@opentelemetry/core';

const [receiver, conversation, countText, intervalText] = process.argv.slice(2);
const count = Number.parseInt(countText ?? '', 10);
const interval = Number.parseInt(intervalText ?? '', 10);
if (!receiver || !conversation || !(count > 0) || !(interval >= 0)) {
  console.error('usage: node send-steady.mjs RECEIVER_URL CONVERSATION_ID COUNT INTERVAL_MS');
  process.exit(2);
}

const failures = [];
const inner = new OTLPTraceExporter({ url: `${receiver}/v1/traces`, timeoutMillis: 30000 });
const exporter = {
  export(spans, done) {
    inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) failures.push(String(result.error));
      done(result);
    });
  },
  shutdown: () => inner.shutdown(),
  forceFlush: () => inner.forceFlush(),
};
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'support-agent' }),
  spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 100, maxExportBatchSize: 20, exportTimeoutMillis: 30000 })],
});
const tracer = provider.getTracer('support-agent');

for (let n = 1; n <= count; ++n) {
  const span = tracer.startSpan('execute_tool get_order', {
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_order',
      'gen_ai.tool.call.id': `call_${n}`,
      'gen_ai.conversation.id': conversation,
      'gen_ai.tool.call.arguments': JSON.stringify({ order_id: `BW-${n}` }),
      'gen_ai.tool.call.result': JSON.stringify({ order_id: `BW-${n}`, status: 'delivered' }),
    },
  });
  span.end();
  console.log(`span ${n}`);
  await new Promise((resolve) => setTimeout(resolve, interval));
}
await provider.forceFlush();
await provider.shutdown();
if (failures.length > 0) {
  console.error(`export failed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('sent');

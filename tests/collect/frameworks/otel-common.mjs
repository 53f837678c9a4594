// Shared OpenTelemetry plumbing for the framework agents.
//
//   node agent-<name>.mjs RECEIVER_URL CONVERSATION_ID
//
// RECEIVER_URL: base URL of an OTLP/HTTP receiver; spans are POSTed as
//   protobuf to RECEIVER_URL + "/v1/traces". Pass "-" (or "") to skip HTTP.
// OTLP_FILE (env): if set, every export batch is ALSO appended to this file as
//   one OTLP/JSON ExportTraceServiceRequest per line (like the Collector's
//   file exporter).
// Exit code: 0 only if every export (HTTP and/or file) reported SUCCESS.
import fs from 'node:fs';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';

export const ORDER_ID = 'SU-55502';
export const ORDER = {
  order_id: 'SU-55502',
  seller_id: 'S-77',
  status: 'delivered',
  payment_intent: 'pi_3Q55502',
  items: [{ item_id: 'IT-1', price_cents: 4599 }],
};
export const REFUND_ARGS = { order_id: 'SU-55502', amount_cents: 4599, reason: 'damaged' };
export const REFUND_OK = { refund_id: 're_1', status: 'succeeded', amount_cents: 4599 };
export const USER_MESSAGE =
  'My order SU-55502 arrived damaged. Please refund it.';
export const FINAL_ANSWER =
  'I have refunded 45.99 for your damaged order SU-55502 (refund re_1). It should appear on your statement in 5-10 business days.';

/**
 * The support-story tool implementations. issue_refund throws on its first
 * invocation (the refund went through at the provider, but the call timed out),
 * and succeeds on the second.
 */
export function makeBackend() {
  let refundCalls = 0;
  return {
    getOrder(orderId) {
      if (orderId !== ORDER_ID) throw new Error(`unknown order ${orderId}`);
      return structuredClone(ORDER);
    },
    issueRefund(args) {
      refundCalls += 1;
      if (refundCalls === 1) throw new Error('provider timeout after 30s');
      return structuredClone(REFUND_OK);
    },
    get refundCalls() {
      return refundCalls;
    },
  };
}

export function parseArgs(agentName) {
  const [receiver = '', conversationId = ''] = process.argv.slice(2);
  if (!conversationId) {
    console.error(`usage: node agent-${agentName}.mjs RECEIVER_URL CONVERSATION_ID  (RECEIVER_URL may be "-" when OTLP_FILE is set)`);
    process.exit(1);
  }
  const receiverUrl = receiver && receiver !== '-' ? receiver.replace(/\/+$/, '') : '';
  const otlpFile = process.env.OTLP_FILE || '';
  if (!receiverUrl && !otlpFile) {
    console.error('need a RECEIVER_URL or OTLP_FILE');
    process.exit(1);
  }
  return { receiverUrl, conversationId, otlpFile };
}

/**
 * A SpanExporter that fans out to the OTLP/HTTP protobuf exporter and/or an
 * OTLP/JSON lines file, and records every ExportResult so the agent can
 * verify delivery before exiting.
 */
export class RecordingExporter {
  constructor({ receiverUrl, otlpFile }) {
    this.http = receiverUrl
      ? new OTLPTraceExporter({ url: `${receiverUrl}/v1/traces`, timeoutMillis: 10000 })
      : null;
    this.otlpFile = otlpFile;
    this.results = []; // { target, code, error }
    this.spanCount = 0;
    this.pending = new Set();
  }

  export(spans, resultCallback) {
    this.spanCount += spans.length;
    const p = this._export(spans).then(resultCallback, (error) =>
      resultCallback({ code: ExportResultCode.FAILED, error }),
    );
    this.pending.add(p);
    p.finally(() => this.pending.delete(p));
  }

  async _export(spans) {
    let code = ExportResultCode.SUCCESS;
    let error;
    if (this.otlpFile) {
      try {
        const bytes = JsonTraceSerializer.serializeRequest(spans);
        fs.appendFileSync(this.otlpFile, Buffer.from(bytes).toString('utf8') + '\n');
        this.results.push({ target: 'file', code: ExportResultCode.SUCCESS });
      } catch (e) {
        this.results.push({ target: 'file', code: ExportResultCode.FAILED, error: e });
        code = ExportResultCode.FAILED;
        error = e;
      }
    }
    if (this.http) {
      const r = await new Promise((resolve) => this.http.export(spans, resolve));
      this.results.push({ target: 'http', code: r.code, error: r.error });
      if (r.code !== ExportResultCode.SUCCESS) {
        code = ExportResultCode.FAILED;
        error = r.error;
      }
    }
    return { code, error };
  }

  async forceFlush() {
    await Promise.allSettled([...this.pending]);
    if (this.http) await this.http.forceFlush();
  }

  async shutdown() {
    await this.forceFlush();
    if (this.http && !this._shut) {
      this._shut = true;
      await this.http.shutdown();
    }
  }

  /** Returns an error string, or null if everything was exported. */
  verdict() {
    if (this.spanCount === 0) return 'no spans were exported';
    if (this.results.length === 0) return 'exporter was never called';
    const failed = this.results.filter((r) => r.code !== ExportResultCode.SUCCESS);
    if (failed.length) {
      return `export failed (${failed.length}/${this.results.length}): ` +
        failed.map((f) => `${f.target}: ${f.error?.message ?? f.error ?? 'FAILED'}`).join('; ');
    }
    return null;
  }
}

/** Flush, shut down and exit 0/1 according to the recorded export results. */
export async function finish(exporter, shutdownFn, extraCheck) {
  let shutdownError = null;
  try {
    await shutdownFn();
  } catch (e) {
    shutdownError = `shutdown failed: ${e?.message ?? e}`;
  }
  try {
    await exporter.shutdown();
  } catch (e) {
    shutdownError ??= `exporter shutdown failed: ${e?.message ?? e}`;
  }
  const reason = extraCheck?.() ?? exporter.verdict() ?? shutdownError;
  if (reason) {
    console.error(`FAIL: ${reason}`);
    process.exit(1);
  }
  const byTarget = {};
  for (const r of exporter.results) byTarget[r.target] = (byTarget[r.target] ?? 0) + 1;
  const targets = Object.entries(byTarget).map(([t, n]) => `${t}:${n} ok`).join(', ');
  console.log(`OK: exported ${exporter.spanCount} spans (${targets})`);
  process.exit(0);
}

export function fail(reason) {
  console.error(`FAIL: ${reason?.stack ?? reason}`);
  process.exit(1);
}

/**
 * A NodeTracerProvider (AsyncLocalStorage context) with a BatchSpanProcessor, or with
 * SPAN_PROCESSOR=simple a SimpleSpanProcessor: each span exported alone as it ends, so a
 * conversation reaches the receiver in as many requests as it has spans.
 */
export async function setupTracing(serviceName, exporter) {
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [process.env.SPAN_PROCESSOR === 'simple'
      ? new SimpleSpanProcessor(exporter)
      : new BatchSpanProcessor(exporter, { scheduledDelayMillis: 200 })],
  });
  provider.register();
  return provider;
}

/**
 * The scripted "model policy" shared by every agent's mock model: given the
 * tool results seen so far in the conversation, decide the next move.
 *   results: array of { name, ok } in order.
 */
export function decideNext(results) {
  const got = results.find((r) => r.name === 'get_order' && r.ok);
  if (!got) return { type: 'tool', id: 'call_get_order_1', name: 'get_order', args: { order_id: ORDER_ID } };
  const refunds = results.filter((r) => r.name === 'issue_refund');
  if (refunds.length === 0) return { type: 'tool', id: 'call_issue_refund_1', name: 'issue_refund', args: { ...REFUND_ARGS } };
  const last = refunds[refunds.length - 1];
  if (!last.ok && refunds.length < 3) {
    return { type: 'tool', id: `call_issue_refund_${refunds.length + 1}`, name: 'issue_refund', args: { ...REFUND_ARGS } };
  }
  return { type: 'text', text: last.ok ? FINAL_ANSWER : 'Sorry, the refund could not be issued.' };
}

// Traceloop / OpenLLMetry (@traceloop/node-server-sdk) agent.
//
// The tool loop is Vercel AI SDK 7 `generateText` with the mock model from
// `ai/test` (Traceloop itself has no tool-calling loop). Spans come from:
//  - Traceloop's own entity API: withWorkflow("support_conversation") >
//    withAgent("support_agent") > withTool("get_order" / "issue_refund")
//    (spans "<name>.workflow", "<name>.agent", "<name>.tool");
//  - the AI SDK's LegacyOpenTelemetry integration (scope "ai"), which is the
//    AI SDK span format Traceloop's span processor understands and rewrites
//    (ai.generateText -> "support_agent.agent"/"chat <model>",
//     ai.toolCall -> "execute_tool <tool>", adds gen_ai.* attributes).
// Conversation id: `associationProperties: { conversation_id }` on the
// workflow (-> traceloop.association.properties.conversation_id on every span
// started inside it) and Traceloop's `conversationId` option
// (-> gen_ai.conversation.id on every span started inside it).
// Export: Traceloop `initialize({ exporter, disableBatch: true })` with our
// RecordingExporter (OTLP/HTTP protobuf to RECEIVER_URL/v1/traces and/or
// OTLP_FILE).
import * as traceloop from '@traceloop/node-server-sdk';
import { generateText, registerTelemetry, isStepCount } from 'ai';
import { LegacyOpenTelemetry } from '@ai-sdk/otel';
import { makeMockModel, makeTools } from './ai-sdk-story.mjs';
import {
  parseArgs, RecordingExporter, finish, fail, makeBackend, USER_MESSAGE,
} from './otel-common.mjs';

const AGENT = 'traceloop';
const { receiverUrl, conversationId, otlpFile } = parseArgs(AGENT);
const exporter = new RecordingExporter({ receiverUrl, otlpFile });

traceloop.initialize({
  appName: `verity-fw-${AGENT}`,
  baseUrl: receiverUrl || 'http://127.0.0.1:9', // unused: a custom exporter is given
  apiKey: undefined,
  exporter,
  disableBatch: true,
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
  logLevel: 'error',
});

registerTelemetry(new LegacyOpenTelemetry());

const backend = makeBackend();
const tools = makeTools(backend, (name, fn, args) => traceloop.withTool({ name }, fn, args));

let result;
try {
  result = await traceloop.withWorkflow(
    {
      name: 'support_conversation',
      associationProperties: { conversation_id: conversationId },
      conversationId,
    },
    () =>
      traceloop.withAgent({ name: 'support_agent' }, () =>
        generateText({
          model: makeMockModel(),
          instructions: 'You are a customer support agent for an online marketplace.',
          prompt: USER_MESSAGE,
          tools,
          stopWhen: isStepCount(6),
          telemetry: { functionId: 'support-agent' },
        }),
      ),
  );
} catch (e) {
  fail(e);
}
console.log(`[${AGENT}] steps=${result.steps.length} refundCalls=${backend.refundCalls} text=${JSON.stringify(result.text)}`);
await finish(exporter, () => traceloop.forceFlush(), () =>
  backend.refundCalls === 2 && result.steps.length === 4 ? null
    : `story did not play out: refundCalls=${backend.refundCalls} steps=${result.steps.length}`);

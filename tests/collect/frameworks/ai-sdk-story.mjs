// The support story on Vercel AI SDK 7 (generateText + tool loop) with a mock
// LanguageModelV4 from `ai/test`. Used by agent-ai-sdk.mjs (OpenTelemetry,
// GenAI semconv) and agent-ai-sdk-legacy.mjs (LegacyOpenTelemetry, ai.* spans).
import { generateText, registerTelemetry, tool, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import {
  parseArgs, RecordingExporter, setupTracing, finish, fail, makeBackend,
  decideNext, USER_MESSAGE,
} from './otel-common.mjs';

/** Reads the tool results seen so far from a LanguageModelV4 prompt. */
function toolResultsFromPrompt(prompt) {
  const out = [];
  for (const msg of prompt) {
    if (msg.role !== 'tool') continue;
    for (const part of msg.content) {
      if (part.type !== 'tool-result') continue;
      const ok = !String(part.output?.type ?? '').startsWith('error');
      out.push({ name: part.toolName, ok });
    }
  }
  return out;
}

export function makeMockModel() {
  let n = 0;
  const usage = (i, o) => ({
    inputTokens: { total: i, noCache: i, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: o, text: o, reasoning: 0 },
  });
  return new MockLanguageModelV4({
    provider: 'mock-provider',
    modelId: 'mock-support-model',
    doGenerate: async ({ prompt }) => {
      n += 1;
      const next = decideNext(toolResultsFromPrompt(prompt));
      const response = { id: `resp_${n}`, modelId: 'mock-support-model', timestamp: new Date() };
      if (next.type === 'tool') {
        return {
          content: [{ type: 'tool-call', toolCallId: next.id, toolName: next.name, input: JSON.stringify(next.args) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: usage(100 + 40 * n, 20),
          response,
          warnings: [],
        };
      }
      return {
        content: [{ type: 'text', text: next.text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(100 + 40 * n, 35),
        response,
        warnings: [],
      };
    },
  });
}

/**
 * The two support tools as AI SDK tools. `wrap(name, fn, args)` lets a caller
 * run the implementation inside its own instrumentation (Traceloop withTool).
 */
export function makeTools(backend, wrap = (name, fn, args) => fn(args)) {
  return {
    get_order: tool({
      description: 'Look up an order by its id.',
      inputSchema: z.object({ order_id: z.string().describe('The order id, e.g. SU-12345') }),
      execute: async (args) => wrap('get_order', async ({ order_id }) => backend.getOrder(order_id), args),
    }),
    issue_refund: tool({
      description: 'Refund an order through the payment provider. Moves money.',
      inputSchema: z.object({
        order_id: z.string(),
        amount_cents: z.number().int(),
        reason: z.string(),
        item_id: z.string().optional(),
      }),
      execute: async (args) => wrap('issue_refund', async (a) => backend.issueRefund(a), args),
    }),
  };
}

export async function runAiSdkStory({ agentName, makeIntegration }) {
  const { receiverUrl, conversationId, otlpFile } = parseArgs(agentName);
  const exporter = new RecordingExporter({ receiverUrl, otlpFile });
  const provider = await setupTracing(`verity-fw-${agentName}`, exporter);
  registerTelemetry(makeIntegration(conversationId));

  const backend = makeBackend();
  const tools = makeTools(backend);

  let result;
  try {
    result = await generateText({
      model: makeMockModel(),
      instructions: 'You are a customer support agent for an online marketplace.',
      prompt: USER_MESSAGE,
      tools,
      stopWhen: isStepCount(6),
      ...(conversationId === 'none' ? {} : { runtimeContext: { conversationId } }),
      telemetry: {
        functionId: 'support-agent',
        ...(conversationId === 'none' ? {} : { includeRuntimeContext: { conversationId: true } }),
      },
    });
  } catch (e) {
    fail(e);
  }
  console.log(`[${agentName}] steps=${result.steps.length} refundCalls=${backend.refundCalls} text=${JSON.stringify(result.text)}`);
  await finish(exporter, () => provider.shutdown(), () =>
    backend.refundCalls === 2 && result.steps.length === 4 ? null
      : `story did not play out: refundCalls=${backend.refundCalls} steps=${result.steps.length}`);
}

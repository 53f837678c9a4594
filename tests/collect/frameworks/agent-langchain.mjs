// LangChain.js v1 agent (`createAgent` from `langchain`, which runs a LangGraph
// ReAct loop whose ToolNode executes the tools) instrumented by
// @arizeai/openinference-instrumentation-langchain (OpenInference spans:
// openinference.span.kind = CHAIN / LLM / TOOL).
//
// Model: a scripted chat model built on @langchain/core's BaseChatModel
// (no network). It decides each turn from the ToolMessages in the history,
// and reports its bound tools in `invocationParams()` the way ChatOpenAI does,
// so OpenInference records them as llm.tools.N.tool.json_schema.
//
// Tools: `get_order` is a string-input tool (tool() with a z.string() schema →
// a LangChain DynamicTool), `issue_refund` a structured tool.
//
// Conversation id: LangChain run metadata `conversation_id` (OpenInference maps
// session_id / thread_id / conversation_id metadata to `session.id`), plus
// OpenInference's own context attribute via `setSession` from
// @arizeai/openinference-core (also `session.id`).
import { context } from '@opentelemetry/api';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { setSession } from '@arizeai/openinference-core';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  parseArgs, RecordingExporter, setupTracing, finish, fail, makeBackend,
  decideNext, USER_MESSAGE,
} from './otel-common.mjs';

const AGENT = 'langchain';
const { receiverUrl, conversationId, otlpFile } = parseArgs(AGENT);
const exporter = new RecordingExporter({ receiverUrl, otlpFile });
const provider = await setupTracing(`verity-fw-${AGENT}`, exporter);

const lcInstrumentation = new LangChainInstrumentation({ tracerProvider: provider });
lcInstrumentation.manuallyInstrument(CallbackManagerModule);

const MODEL_NAME = 'scripted-support-model';

class ScriptedSupportChatModel extends BaseChatModel {
  static lc_name() {
    return 'ScriptedSupportChatModel';
  }
  _llmType() {
    return 'scripted-support';
  }
  // Same shape as ChatOpenAI: tools are part of the invocation params.
  invocationParams(options) {
    return {
      model: MODEL_NAME,
      temperature: 0,
      ...(options?.tools?.length ? { tools: options.tools } : {}),
      ...(options?.tool_choice ? { tool_choice: options.tool_choice } : {}),
    };
  }
  bindTools(tools, kwargs) {
    return this.withConfig({ tools: tools.map((t) => convertToOpenAITool(t)), ...kwargs });
  }
  async _generate(messages) {
    const results = messages
      .filter((m) => ToolMessage.isInstance(m))
      .map((m) => ({ name: m.name, ok: m.status !== 'error' }));
    const next = decideNext(results);
    const turn = messages.filter((m) => AIMessage.isInstance(m)).length + 1;
    const usage = { input_tokens: 100 + 40 * turn, output_tokens: 20, total_tokens: 120 + 40 * turn };
    let message;
    if (next.type === 'tool') {
      // The string tool's JSON schema is {"input": string}; a model fills that.
      const args = next.name === 'get_order' ? { input: next.args.order_id } : next.args;
      message = new AIMessage({
        content: '',
        tool_calls: [{ id: next.id, name: next.name, args, type: 'tool_call' }],
        // Raw provider tool calls, as ChatOpenAI keeps them in additional_kwargs.
        additional_kwargs: {
          tool_calls: [{ id: next.id, type: 'function', function: { name: next.name, arguments: JSON.stringify(args) } }],
        },
        usage_metadata: usage,
        response_metadata: { model_name: MODEL_NAME, finish_reason: 'tool_calls' },
        id: `resp_${turn}`,
      });
    } else {
      message = new AIMessage({
        content: next.text,
        usage_metadata: usage,
        response_metadata: { model_name: MODEL_NAME, finish_reason: 'stop' },
        id: `resp_${turn}`,
      });
    }
    return {
      generations: [{ text: typeof message.content === 'string' ? message.content : '', message }],
      llmOutput: { tokenUsage: { promptTokens: usage.input_tokens, completionTokens: usage.output_tokens, totalTokens: usage.total_tokens } },
    };
  }
}

const backend = makeBackend();

const getOrder = tool(async (orderId) => JSON.stringify(backend.getOrder(orderId)), {
  name: 'get_order',
  description: 'Look up an order by its id (e.g. SU-12345).',
  schema: z.string().describe('The order id'),
});

const issueRefund = tool(async (args) => JSON.stringify(backend.issueRefund(args)), {
  name: 'issue_refund',
  description: 'Refund an order through the payment provider. Moves money.',
  schema: z.object({
    order_id: z.string(),
    amount_cents: z.number().int(),
    reason: z.string(),
    item_id: z.string().optional(),
  }),
});

const agent = createAgent({
  model: new ScriptedSupportChatModel({}),
  tools: [getOrder, issueRefund],
  systemPrompt: 'You are a customer support agent for an online marketplace.',
  name: 'support_agent',
});

let result;
try {
  const ctx = setSession(context.active(), { sessionId: conversationId });
  result = await context.with(ctx, () =>
    agent.invoke(
      { messages: [new HumanMessage(USER_MESSAGE)] },
      {
        runName: 'support_agent',
        metadata: { conversation_id: conversationId },
        recursionLimit: 20,
      },
    ),
  );
} catch (e) {
  fail(e);
}
const last = result.messages[result.messages.length - 1];
console.log(`[${AGENT}] messages=${result.messages.length} refundCalls=${backend.refundCalls} text=${JSON.stringify(last.content)}`);
await finish(exporter, () => provider.shutdown(), () =>
  backend.refundCalls === 2 ? null : `story did not play out: refundCalls=${backend.refundCalls}`);

// Vercel AI SDK 7 + @ai-sdk/otel `OpenTelemetry` integration (GenAI semantic
// conventions: invoke_agent / step / chat / execute_tool spans).
//
// Conversation id: AI SDK 7 has no conversation notion of its own. It is
// passed as `runtimeContext.conversationId`, allowed into telemetry with
// `telemetry.includeRuntimeContext`, and emitted as
// `ai.settings.context.conversationId` on the agent and step spans (option
// `runtimeContext: true`). With CONVERSATION_ID "none" the agent names no
// conversation at all, as an application that never set one.
import { OpenTelemetry } from '@ai-sdk/otel';
import { runAiSdkStory } from './ai-sdk-story.mjs';

await runAiSdkStory({
  agentName: 'ai-sdk',
  makeIntegration: () =>
    new OpenTelemetry({
      agentSpanName: 'functionId',
      runtimeContext: true,
      usage: true,
      toolChoice: true,
    }),
});

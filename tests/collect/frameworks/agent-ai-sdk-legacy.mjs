// Vercel AI SDK 7 + @ai-sdk/otel `LegacyOpenTelemetry` integration: the
// AI SDK 4-6 span style (ai.generateText / ai.generateText.doGenerate /
// ai.toolCall with ai.toolCall.name/.id/.args/.result).
//
// Conversation id: AI SDK 7 removed `experimental_telemetry.metadata`
// (ai.telemetry.metadata.*). Its replacement is `runtimeContext` +
// `telemetry.includeRuntimeContext`, emitted by LegacyOpenTelemetry as
// `ai.settings.context.conversationId` (also on ai.toolCall spans).
import { LegacyOpenTelemetry } from '@ai-sdk/otel';
import { runAiSdkStory } from './ai-sdk-story.mjs';

await runAiSdkStory({
  agentName: 'ai-sdk-legacy',
  makeIntegration: () => new LegacyOpenTelemetry(),
});

#pragma once
// The transcript formats Verity reads, and the choice among them by content: one JSON value
// (a JSONL line, or one element of a streamed document) in, the conversations it holds out.

#include "conversation.h"

#include <QList>
#include <QString>

#include <utility>

namespace verity {

namespace formats {
inline const QString native = QStringLiteral("native");
inline const QString openAiChat = QStringLiteral("openai-chat");
inline const QString openAiResponses = QStringLiteral("openai-responses");
inline const QString anthropic = QStringLiteral("anthropic");
inline const QString otlp = QStringLiteral("otlp");
inline const QString tauV1 = QStringLiteral("tau-v1");
inline const QString tau2 = QStringLiteral("tau2");
} // namespace formats

// "OpenAI Chat Completions", "τ²-bench", ... for summaries and the window.
QString transcriptFormatName(const QString &format);

struct ReadConversation
{
    QString format;
    Expected<Conversation> conversation;
};

// Every conversation in `value`, each read by the adapter its content calls for; `context.ordinal`
// counts up by one per conversation. A value that is no known shape is one error saying what was
// expected.
QList<ReadConversation> conversationsIn(const nlohmann::json &value, ConversationContext &context);

// Whether a JSON value is an event of Verity's own JSONL format rather than a conversation.
bool looksLikeNativeEvent(const nlohmann::json &value);

} // namespace verity

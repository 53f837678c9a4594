#include "conversation.h"

#include "nativeevent.h"

#include <QSet>

namespace verity {

QString fallbackConversationId(const ConversationContext &context)
{
    if (!context.contentHash.isEmpty())
        return QStringLiteral("conversation-%1").arg(context.contentHash);
    return QStringLiteral("%1#%2").arg(context.fileStem).arg(context.ordinal);
}

QStringList toolsCalled(const Conversation &conversation)
{
    QStringList tools;
    QSet<QString> seen;
    for (const Turn &turn : conversation.turns) {
        if (turn.kind == Turn::Kind::ToolCall && !seen.contains(turn.tool)) {
            seen.insert(turn.tool);
            tools.append(turn.tool);
        }
    }
    return tools;
}

} // namespace verity

#include "conversation.h"

#include "nativeevent.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QSet>

namespace verity {

QString fallbackConversationId(const ConversationContext &context)
{
    if (!context.contentHash.isEmpty())
        return QStringLiteral("conversation-%1").arg(context.contentHash);
    return QStringLiteral("%1#%2").arg(context.fileStem).arg(context.ordinal);
}

std::optional<qint64> parseLooseTimestamp(const QString &text)
{
    if (std::optional<qint64> zoned = parseTimestamp(text))
        return zoned;
    // Python tools (τ² among them) write "2025-08-01T16:16:37.295213" or with a space and no
    // zone; such times are UTC in practice. Qt reads milliseconds, so finer digits are cut.
    static const QRegularExpression loose(
            QStringLiteral(R"(^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(\.\d{1,3})?\d*(Z|[+-]\d\d:\d\d)?$)"));
    const QRegularExpressionMatch match = loose.match(text.trimmed());
    if (!match.hasMatch())
        return std::nullopt;
    const QString zone = match.captured(4).isEmpty() ? QStringLiteral("Z") : match.captured(4);
    const QDateTime time = QDateTime::fromString(
            match.captured(1) + u'T' + match.captured(2) + match.captured(3) + zone, Qt::ISODateWithMs);
    if (!time.isValid())
        return std::nullopt;
    return time.toMSecsSinceEpoch();
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

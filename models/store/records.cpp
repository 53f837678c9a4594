#include "records.h"

namespace verity {

QString messageKindId(MessageKind kind)
{
    switch (kind) {
    case MessageKind::Customer: return QStringLiteral("customer");
    case MessageKind::Agent: return QStringLiteral("agent");
    case MessageKind::System: return QStringLiteral("system");
    case MessageKind::Reply: return QStringLiteral("reply");
    }
    Q_UNREACHABLE();
}

std::optional<MessageKind> messageKindFromId(QStringView id)
{
    for (MessageKind kind : {MessageKind::Customer, MessageKind::Agent, MessageKind::System, MessageKind::Reply}) {
        if (id == messageKindId(kind))
            return kind;
    }
    return std::nullopt;
}

} // namespace verity

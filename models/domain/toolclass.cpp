#include "toolclass.h"

namespace verity {

namespace {
constexpr ToolClass allClasses[] = {ToolClass::Read,          ToolClass::WriteMoney,
                                    ToolClass::WriteCostly,   ToolClass::WriteIrreversible,
                                    ToolClass::WriteWasteful, ToolClass::Unclassified};
}

QString toolClassId(ToolClass toolClass)
{
    switch (toolClass) {
    case ToolClass::Read:
        return QStringLiteral("read");
    case ToolClass::WriteMoney:
        return QStringLiteral("write_money");
    case ToolClass::WriteCostly:
        return QStringLiteral("write_costly");
    case ToolClass::WriteIrreversible:
        return QStringLiteral("write_irreversible");
    case ToolClass::WriteWasteful:
        return QStringLiteral("write_wasteful");
    case ToolClass::Unclassified:
        return QStringLiteral("unclassified");
    }
    Q_UNREACHABLE();
}

std::optional<ToolClass> toolClassFromId(QStringView id)
{
    for (ToolClass toolClass : allClasses) {
        if (id == toolClassId(toolClass))
            return toolClass;
    }
    return std::nullopt;
}

QString toolClassLabel(ToolClass toolClass)
{
    switch (toolClass) {
    case ToolClass::Read:
        return QStringLiteral("Read");
    case ToolClass::WriteMoney:
        return QStringLiteral("Write: money");
    case ToolClass::WriteCostly:
        return QStringLiteral("Write: costly");
    case ToolClass::WriteIrreversible:
        return QStringLiteral("Write: irreversible");
    case ToolClass::WriteWasteful:
        return QStringLiteral("Write: wasteful if repeated");
    case ToolClass::Unclassified:
        return QStringLiteral("Unclassified tool");
    }
    Q_UNREACHABLE();
}

bool isWrite(ToolClass toolClass)
{
    switch (toolClass) {
    case ToolClass::WriteMoney:
    case ToolClass::WriteCostly:
    case ToolClass::WriteIrreversible:
    case ToolClass::WriteWasteful:
        return true;
    case ToolClass::Read:
    case ToolClass::Unclassified:
        return false;
    }
    Q_UNREACHABLE();
}

bool mayRetryAutomatically(ToolClass toolClass)
{
    return toolClass == ToolClass::Read;
}

} // namespace verity

#pragma once
// Every tool is classified in code, and the class alone decides whether a call may be
// repeated automatically. A tool nobody classified is Unclassified, never assumed a read.

#include <QString>
#include <QStringView>

#include <optional>

namespace verity {

enum class ToolClass {
    Read, // at-least-once: safe to retry freely
    WriteMoney, // at-most-once: refunds, payouts
    WriteCostly, // at-most-once: a courier pickup someone pays for
    WriteIrreversible, // at-most-once: a message that was read cannot be unread
    WriteWasteful, // a duplicate wastes a human minute: escalate_to_human
    Unclassified, // the registry does not know this tool
};

QString toolClassId(ToolClass toolClass); // "read", "write_money", ... "unclassified"
std::optional<ToolClass> toolClassFromId(QStringView id);
QString toolClassLabel(ToolClass toolClass); // "Read", "Money", ...

bool isWrite(ToolClass toolClass);
// Only reads may be repeated without a person: every write is at most once, and an
// unclassified tool is treated as the most dangerous write until someone classifies it.
bool mayRetryAutomatically(ToolClass toolClass);

} // namespace verity

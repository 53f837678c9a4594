#pragma once
// What the Classify dialog first offers for a tool the registry did not know, read from one
// call's arguments and result. A wrong "read" is the dangerous mistake (reads are retried
// freely), so the suggestion is never a read: an argument whose name says money makes it a
// money write, an id the call created makes it a costly write, and with no clue there is no
// suggestion and the person chooses.

#include "domain/toolclass.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace verity {

struct ToolHint;

struct ToolClassSuggestion
{
    std::optional<ToolClass> toolClass; // never Read; nullopt when nothing says what the tool does
    QString amountField; // for a money write: the argument in whole cents, if one is
    QString reason; // why, in words, for the person who decides
};

// `sampleArguments`: a call's arguments as a JSON object; `sampleResult`: its raw result,
// empty when it had none. Text that is not JSON gives no clue.
ToolClassSuggestion suggestToolClass(const QString &sampleArguments, const QString &sampleResult);

// The class Verity takes for a tool no registry knows, until a person confirms one: from what
// the telemetry says of the tool (`hint`, may be null), its call (as above) and its name; `reason`
// names where it came from. A tool its server marks read-only and whose own name or description
// says it reads is a read, whatever money its filters name. Otherwise money first, whatever says
// it, even against a read-only hint (a server's hint is a hint, and a wrong read is the dangerous
// mistake): a money argument of its
// schema or call (the amount the best-named whole-cents one), a description that says it moves
// money. Then MCP's readOnlyHint makes a read; a name that says it moves money a money write;
// destructiveHint an irreversible write, idempotentHint a wasteful one, readOnlyHint false a
// costly one. A description or a name never makes a read.
ToolClassSuggestion inferToolClass(const QString &tool, const ToolHint *hint, const QString &arguments,
                                   const QString &result);

// A raw result as a person reads it: a JSON string (a chat transcript's tool message) is shown
// as its text, anything else as it is.
QString readableResult(const QString &rawResult);

// An argument name that says money, by its words: "amount", "amount_cents", "refundAmount",
// "unit_price", "total", "fee"... ("item_count" and "refund_id" do not).
bool isMoneyName(const QString &name);
// A result key that names an id: "id", "refund_id", "pickupId".
bool isIdName(const QString &name);

} // namespace verity

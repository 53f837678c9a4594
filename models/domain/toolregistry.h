#pragma once
// The tool registry: which tools exist, their class, the fields that make up one intent,
// and the rules that read an unstructured write result. Loaded from JSON (the default ships
// in resources, a user file may extend or override it). Loading returns a new registry or
// an error; the registry in force is never half-replaced.

#include "expected.h"
#include "paymentreference.h"
#include "toolclass.h"

#include <QHash>
#include <QList>
#include <QRegularExpression>
#include <QString>

#include <optional>
#include <utility>

namespace verity {

struct IntentField
{
    enum class Type {
        String, // compared as text (Unicode NFC)
        Integer, // decimal; cents are integers
        Sha256, // long text: the key holds its SHA-256, so the key stays short and private
        Json, // any JSON (a list of item ids): the SHA-256 of its canonical text, keys sorted,
              // list order kept, since a list's order can carry meaning
    };
    QString name;
    Type type = Type::String;
};

// Where an unknown write can be looked up in the system it went to ("lookup" in the file):
// list `path` with each filter's query parameter set to the call's argument of that name (or
// the ticket's fact of that name when the argument is missing); the record whose `key` equals
// the call's intent key is this write. Refunds have a lookup of their own at the payment
// provider and need none.
struct RecordLookupSpec
{
    QString system; // a short kind shown to people: "payments", "courier", "messaging"
    QString path; // under the system's base URL: "/v1/pickups"
    QList<std::pair<QString, QString>> filter; // query parameter, argument: ("order", "order_id")
    QString key; // "metadata.<name>", or the name of a top-level field
};

struct ToolSpec
{
    QString name;
    ToolClass toolClass = ToolClass::Unclassified;
    QList<IntentField> intent; // in key order
    QString amountField; // the argument that carries money in cents, if any
    std::optional<RecordLookupSpec> lookup; // writes only
    // Where its calls name a payment at the provider ("payment" in the file): a refund's own
    // payment, or the payment of the order a read returns. Newest first wins; see PaymentField.
    QList<PaymentField> payment;
};

// One rule that reads an unstructured write result. The name is what a support agent sees on
// the card ("the registry's timeout rule matched ..."), so it is words, never the pattern.
struct OutcomeRule
{
    QString name; // "timeout", "4xx status"
    QRegularExpression pattern;
};

struct OutcomeRules
{
    QList<OutcomeRule> unknown; // errors after which nobody knows what happened
    QList<OutcomeRule> notPerformed; // explicit refusals: nothing happened
};

class ToolRegistry
{
public:
    ToolRegistry() = default;

    // `source` names the file in error messages.
    static Expected<ToolRegistry> fromJson(const QByteArray &json, const QString &source);
    static Expected<ToolRegistry> fromFile(const QString &path);
    // The registry shipped with Verity (compiled into the resources).
    static ToolRegistry builtIn();

    // A copy in which `json` adds tools, replaces tools of the same name, and adds rules.
    Expected<ToolRegistry> extendedWith(const QByteArray &json, const QString &source) const;
    Expected<ToolRegistry> extendedWithFile(const QString &path) const;

    const ToolSpec *find(const QString &tool) const;
    ToolClass classOf(const QString &tool) const;
    const OutcomeRules &outcomeRules() const { return m_rules; }
    QStringList toolNames() const;

private:
    QHash<QString, ToolSpec> m_tools;
    OutcomeRules m_rules;
};

} // namespace verity

#pragma once
// The intent key: the same facts give the same key in every process and after a restart;
// a changed fact gives a new key; a missing fact is an error, never a key. Time, attempt
// numbers and randomness never enter it.

#include "expected.h"
#include "toolregistry.h"

#include <QHash>
#include <QString>

#include <nlohmann/json_fwd.hpp>

#include <optional>

namespace verity {

// Facts a ticket supplies when the call's arguments lack them (ticket_id, seller_id, order_id).
using TicketFacts = QHash<QString, QString>;

// The exact bytes that are hashed: a version tag, then the tool name and each intent field's
// name and value in registry order, each written as `<byte length>:<bytes>,` (a netstring),
// so that no two different intents can encode to the same bytes.
Expected<QByteArray> canonicalIntent(const ToolSpec &tool, const nlohmann::json &arguments,
                                     const TicketFacts &ticket);

// Lowercase hex SHA-256 of canonicalIntent().
Expected<QString> intentKey(const ToolSpec &tool, const nlohmann::json &arguments, const TicketFacts &ticket);

// The key an observed write is compared by. From the registry's intent fields when they are all
// there and well formed; otherwise from all of the call's arguments, so that an identical retry
// of an unknown write is still caught. A profile's key is only ever narrower than that one.
struct WriteKey
{
    QString key; // lowercase hex SHA-256; never empty
    // Why the registry's fields could not make it ("intent field "item_id" of issue_refund:
    // missing from the arguments and the ticket"); empty when they did.
    QString fromAllArgumentsBecause;
    bool fromAllArguments() const { return !fromAllArgumentsBecause.isEmpty(); }
};
WriteKey writeKey(const ToolSpec &tool, const nlohmann::json &arguments, const TicketFacts &ticket);

// The bytes hashed for a key from all arguments: a tag of its own (no field key can collide
// with it), the tool's name, and the arguments as normalised JSON: keys sorted, text in NFC,
// whole numbers written as integers (4599.0 is 4599), null members left out, and so is an
// idempotency key (isIdempotencyKeyName): a retry that made up a new key is the same intent.
QByteArray canonicalArguments(const QString &tool, const nlohmann::json &arguments);

// An argument that carries the caller's idempotency key: "idempotency_key", "idempotencyKey",
// "Idempotency-Key".
bool isIdempotencyKeyName(const QString &name);

// The money a write names in its registry's amount field: whole cents from 1 to
// maxAmountCents, or what is wrong with it (InputErrc::Invalid, "field \"amount_cents\":
// expected …, got -5000"). No amount when the tool carries no money or the call names none.
Expected<std::optional<qint64>> readAmount(const ToolSpec &tool, const nlohmann::json &arguments);

} // namespace verity

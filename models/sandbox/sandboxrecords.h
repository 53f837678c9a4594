#pragma once
// The sandbox's systems beside the payment provider: a courier that schedules pickups and a
// seller-messaging service that sends messages. Each keeps records of one kind, made by a
// POST with an idempotency key, read by id and listed by order, in Stripe's shapes, the way
// the provider keeps refunds. A kind only names its parameters; the endpoints, the state, the
// idempotency keys and the faults are the refunds' own.

#include "sandboxstate.h"

#include <QList>
#include <QString>

#include <QLatin1StringView>

namespace verity {

struct SandboxRecordParam
{
    QString name;
    bool required = false;
    int maxLength = 200; // characters
};

struct SandboxRecordKind
{
    QString object; // "pickup": the object's name in its JSON and in the state
    QLatin1StringView path; // "/v1/pickups"
    QString idPrefix; // "pu_"
    QString system; // "courier": who keeps it, for messages
    QList<SandboxRecordParam> params; // "order" first; an optional one not given is written null
    QList<std::pair<QString, QString>> fixed; // fields every new record has: ("status", "scheduled")
};

const SandboxRecordKind &sandboxPickups();
const SandboxRecordKind &sandboxMessages();
const SandboxRecordKind *sandboxRecordKindAt(QStringView path); // "/v1/pickups", or null
const SandboxRecordKind *sandboxRecordKindOf(QStringView object); // "pickup", or null

// A new record of `kind` with the given parameters (order included) and the kind's fixed fields;
// a pickup also has the "window" the courier booked for it.
SandboxRecord newSandboxRecord(const SandboxRecordKind &kind, QString id,
                               const QMap<QString, QString> &params, qint64 created,
                               SandboxMetadata metadata);

} // namespace verity

#pragma once
// What an audit entry records, as the ids stored in the chain and the plain words a person
// reads. The ids are hashed into the chain, so they never change; the words may.

#include <QString>

namespace verity::auditaction {

inline const QString lookup = QStringLiteral("lookup"); // the system was asked
inline const QString attest = QStringLiteral("attest"); // a person recorded a check
inline const QString reconciliation = QStringLiteral("reconciliation"); // a reconciliation's record
inline const QString writeStarted = QStringLiteral("write-started"); // a repeat is about to be sent
inline const QString refundSent = QStringLiteral("refund-sent"); // a refund POST and its answer
inline const QString recordSent = QStringLiteral("write-sent"); // a pickup or message POST
inline const QString settle = QStringLiteral("settle"); // an escalation settled
inline const QString paymentEntered = QStringLiteral("payment-entered"); // a person named the payment
inline const QString claim = QStringLiteral("claim"); // an operator took an escalation to work on
inline const QString release = QStringLiteral("release"); // and gave it back, or an admin took it off them
// Entries written before settlements were hashed (schema 10 and earlier).
inline const QString legacyResolve = QStringLiteral("resolve");
inline const QString legacyWrite = QStringLiteral("write");

// "Looked up", "Settled", "Refund sent", ...; an id this version does not know is shown as it is.
QString words(const QString &action);

// Entries whose evidence hash is the SHA-256 of an evidence row of their escalation.
bool citesEvidence(const QString &action);

} // namespace verity::auditaction

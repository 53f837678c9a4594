#pragma once
// The words every view uses for an escalation: which call it is (so that a person always sees
// what they act on), who settled it and how, and what a repeat would send.

#include "store/records.h"

#include <QList>
#include <QString>
#include <QUrl>

#include <utility>

namespace verity {

struct RefundIntent;

// "2026-03-17T14:32:07Z": times in evidence and on the command line are ISO 8601, UTC.
QString isoTime(qint64 ms);

// "issue_refund c3 · $118.00 · T-20260317-0412 · Aiko Tanaka · order SU-88421 · Ashcombe Furniture"
QString escalationHeading(const EscalationDetail &escalation);
// The same facts, one per line, each with its label: Ticket, Customer, Order, Seller, Tool, Call, Amount.
QList<std::pair<QString, QString>> escalationFacts(const EscalationDetail &escalation);

// "settled first by alice at 2026-12-01T14:03:22Z (performed, verified)"
QString settledByText(const QString &by, qint64 at, Resolution resolution, SettlementBasis basis);
// Settled by a person's attested check, which a system's answer may still replace.
bool standsOnACheck(const EscalationDetail &escalation);
// "the check bob recorded at 2026-…Z (not performed (attested))" when evidence is about to
// replace a person's check on this escalation; empty when it stands on no check.
QString replacedCheckText(const EscalationDetail &escalation);

// `detail` ended as a sentence and followed by `replaces` (" It replaces the check …"), or as it
// is when `replaces` is empty: an audit entry that settles in place of a check says so apart.
QString withReplacedCheck(QString detail, const QString &replaces);

// What a person confirms before a write is sent again: every fact of it, the intent key and
// the URL it goes to.
// A refund's payment and where it was named: "pi_… (order SU-1)", and the seller's account
// when it is asked there.
QString paymentText(const RefundIntent &intent);

// `lookupFirst`: only a person's check found it absent, and the system is asked before it is sent.
QString repeatConfirmationText(const EscalationDetail &escalation, const QUrl &endpoint,
                               const QString &system, const QString &keyExpiry = {},
                               const QString &keyKind = {}, const QString &payment = {},
                               bool lookupFirst = false);

} // namespace verity

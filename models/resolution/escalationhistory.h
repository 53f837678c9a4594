#pragma once
// Everything kept about one escalation, for a person to read again at any time: the call,
// every lookup, write, attested check and reconciliation record in order (requests,
// responses, who, when, hash, verdict), where it stands, and what to tell the customer now.

#include "domain/expected.h"
#include "store/records.h"

#include <QList>
#include <QString>

namespace verity {

class EscalationReads;

struct EscalationHistory
{
    EscalationDetail escalation;
    QList<Evidence> evidence; // oldest first
    QString standing; // "Settled: performed (verified) by alice at …; refund re_…", or why it waits
    QString customerDraft;
};

Expected<EscalationHistory> escalationHistory(EscalationReads &store, qint64 escalationId);

// The evidence as plain text, times in ISO 8601 UTC: what the Evidence window shows.
QString evidenceText(const EscalationHistory &history);
QString evidenceKindText(EvidenceKind kind); // "Lookup", "Write sent", "Attested check", "Reconciliation"

} // namespace verity

#include "escalationhistory.h"

#include "customerdraft.h"
#include "escalationtext.h"
#include "store/store.h"

namespace verity {

QString evidenceKindText(EvidenceKind kind)
{
    switch (kind) {
    case EvidenceKind::Lookup:
        return QStringLiteral("Lookup");
    case EvidenceKind::Write:
        return QStringLiteral("Write sent");
    case EvidenceKind::Attestation:
        return QStringLiteral("Attested check");
    case EvidenceKind::Reconciliation:
        return QStringLiteral("Reconciliation");
    }
    Q_UNREACHABLE();
}

namespace {

QString verdictText(const Evidence &evidence)
{
    switch (evidence.verdict) {
    case LookupVerdict::Found:
        return evidence.recordId.isEmpty() ? QStringLiteral("found")
                                           : QStringLiteral("found %1").arg(evidence.recordId);
    case LookupVerdict::NotFound:
        return QStringLiteral("not found");
    case LookupVerdict::CouldNotTell:
        return QStringLiteral("could not tell");
    }
    Q_UNREACHABLE();
}

QString standingOf(const EscalationDetail &escalation)
{
    if (escalation.state != EscalationState::Resolved || !escalation.resolution) {
        return escalation.lastNote.isEmpty()
                ? QStringLiteral("Open: unknown, do not retry; it waits for evidence.")
                : QStringLiteral("Open: unknown, do not retry. Last note: %1").arg(escalation.lastNote);
    }
    QString text = QStringLiteral("Settled: %1 by %2 at %3")
                           .arg(settlementText(*escalation.resolution, escalation.basis),
                                escalation.resolvedBy, isoTime(escalation.resolvedAt));
    if (!escalation.reference.isEmpty())
        text += QStringLiteral("; %1 %2").arg(escalation.toolClass == ToolClass::WriteMoney
                                                      ? QStringLiteral("refund")
                                                      : QStringLiteral("reference"),
                                              escalation.reference);
    return text + u'.';
}

} // namespace

Expected<EscalationHistory> escalationHistory(EscalationReads &store, qint64 escalationId)
{
    Expected<std::optional<EscalationDetail>> detail = store.escalation(escalationId);
    if (!detail)
        return detail.error();
    if (!*detail)
        return makeError(QStringLiteral("escalation %1 does not exist").arg(escalationId));
    EscalationHistory history;
    history.escalation = **detail;
    Expected<QList<Evidence>> evidence = store.evidence(escalationId);
    if (!evidence)
        return evidence.error();
    history.evidence = *evidence;
    history.standing = standingOf(history.escalation);
    Expected<QString> draft = customerDraftFor(store, history.escalation);
    if (!draft)
        return draft.error();
    history.customerDraft = *draft;
    return history;
}

QString evidenceText(const EscalationHistory &history)
{
    QStringList out;
    out << history.standing << QString();
    if (history.evidence.isEmpty())
        out << QStringLiteral("No evidence yet: nobody has looked this write up or recorded a check.");
    int number = 0;
    for (const Evidence &e : history.evidence) {
        out << QStringLiteral("=== %1. %2, %3 ===")
                        .arg(++number)
                        .arg(evidenceKindText(e.kind), verdictText(e));
        out << QStringLiteral("By: %1").arg(e.operatorName);
        out << QStringLiteral("Started: %1").arg(isoTime(e.startedAt));
        out << QStringLiteral("Finished: %1").arg(isoTime(e.finishedAt));
        if (!e.reason.isEmpty())
            out << QStringLiteral("Why: %1").arg(e.reason);
        out << QStringLiteral("SHA-256: %1").arg(e.evidenceSha256);
        out << QStringLiteral("--- Request ---") << e.request;
        out << QStringLiteral("--- Response ---") << e.response << QString();
    }
    return out.join(u'\n');
}

} // namespace verity

#include "safewriteruntime.h"

#include "domain/money.h"
#include "store/store.h"

#include <QDateTime>
#include <QEventLoop>

namespace verity {

void SafeRefundOperation::cancel()
{
    m_cancelled = true;
    // Whatever was in flight may still have reached the provider: the operations say so.
    if (m_lookup)
        m_lookup->cancel();
    else if (m_refund)
        m_refund->cancel();
}

void SafeRefundOperation::finish(SafeWriteResult result)
{
    if (m_finished)
        return;
    m_finished = true;
    // The lookup made first because the key had expired is part of what happened.
    if (!m_checkNote.isEmpty() && !result.note.startsWith(m_checkNote))
        result.note = m_checkNote + QStringLiteral("; then ") + result.note;
    emit finished(result);
}

SafeWriteRuntime::SafeWriteRuntime(LedgerStore &ledger, ProviderClient &provider, QObject *parent)
    : QObject(parent)
    , m_ledger(ledger)
    , m_provider(provider)
{}

SafeRefundOperation *SafeWriteRuntime::refund(const RefundIntent &intent, const LedgerContext &context)
{
    auto *operation = new SafeRefundOperation(this);
    Expected<std::optional<LedgerEntry>> seen = m_ledger.ledgerEntry(intent.intentKey);
    if (!seen) {
        // Without the ledger nobody can say whether this key already paid out: send nothing,
        // and do not invite a retry either.
        QMetaObject::invokeMethod(
                operation,
                [operation, message = seen.message()] {
                    operation->finish(
                            {Outcome::Unknown,
                             std::nullopt,
                             QStringLiteral("nothing was sent: the ledger could not be read (%1), so whether "
                                            "this intent already paid out is unknown; escalate")
                                     .arg(message),
                             std::nullopt,
                             {}});
                },
                Qt::QueuedConnection);
        return operation;
    }
    if (*seen) {
        const LedgerEntry entry = **seen;
        QMetaObject::invokeMethod(
                operation,
                [operation, entry] {
                    ProviderRefund refund;
                    refund.id = entry.refundId;
                    refund.amountCents = entry.amountCents;
                    refund.currency = entry.currency;
                    refund.intentKey = entry.intentKey;
                    operation->finish(
                            {Outcome::AlreadyPerformed,
                             refund,
                             QStringLiteral("the ledger already holds refund %1 of %2 for this intent key; "
                                            "nothing was sent")
                                     .arg(entry.refundId, formatMoney(entry.amountCents, entry.currency)),
                             std::nullopt,
                             {}});
                },
                Qt::QueuedConnection);
        return operation;
    }

    const QString expired =
            keyExpiry(m_provider.settings(), context.keyFirstSentMs, QDateTime::currentMSecsSinceEpoch());
    if (!expired.isEmpty()) {
        // The key no longer protects this refund: only a lookup made now can say it is not there.
        operation->m_checkNote =
                QStringLiteral("%1, so it would not recognise a repeat: looked the refund up immediately "
                               "before sending")
                        .arg(expired);
        emit operation->progress(tr("The provider no longer knows this key; looking the refund up first…"));
        LookupOperation *lookup = m_provider.lookup(intent);
        operation->m_lookup = lookup;
        connect(lookup, &LookupOperation::progress, operation, &SafeRefundOperation::progress);
        connect(lookup, &LookupOperation::finished, operation,
                [this, operation, intent, context, lookup](const LookupAnswer &answer) {
                    lookup->deleteLater();
                    operation->m_lookup = nullptr;
                    afterCheck(operation, intent, context, answer);
                });
        return operation;
    }
    post(operation, intent, context);
    return operation;
}

QString SafeWriteRuntime::keyExpiry(const ProviderSettings &settings, std::optional<qint64> firstSentMs,
                                    qint64 nowMs)
{
    if (!firstSentMs || *firstSentMs <= 0)
        return QString();
    const qint64 age = nowMs - *firstSentMs;
    if (age <= qint64(settings.keyRetentionHours) * 3600 * 1000)
        return QString();
    const qint64 hours = age / (3600 * 1000);
    const QString ago =
            hours >= 48 ? QStringLiteral("%1 days").arg(hours / 24) : QStringLiteral("%1 hours").arg(hours);
    return QStringLiteral(
                   "the provider keeps idempotency keys for %1 hours and this one was first sent %2 ago")
            .arg(settings.keyRetentionHours)
            .arg(ago);
}

void SafeWriteRuntime::afterCheck(SafeRefundOperation *operation, const RefundIntent &intent,
                                  const LedgerContext &context, const LookupAnswer &answer)
{
    operation->m_checkedFirst = answer.exchanges;
    SafeWriteResult result;
    result.exchanges = answer.exchanges;
    result.lookupVerdict = answer.verdict;
    switch (answer.verdict) {
    case LookupVerdict::NotFound:
        if (operation->m_cancelled)
            break;
        operation->m_checkNote += QStringLiteral(" (%1)").arg(answer.reason);
        post(operation, intent, context);
        return;
    case LookupVerdict::Found:
        // It went through after all: nothing is sent, and the refund found is this intent's.
        result.outcome = Outcome::AlreadyPerformed;
        result.refund = answer.refund;
        result.note = QStringLiteral("%1: found refund %2 with this key, so nothing was sent")
                              .arg(operation->m_checkNote, answer.refund ? answer.refund->id : QString());
        if (answer.refund) {
            const QString ledgerNote = recordInLedger(intent, context, *answer.refund);
            if (!ledgerNote.isEmpty())
                result.note += QStringLiteral("; ") + ledgerNote;
        }
        operation->finish(result);
        return;
    case LookupVerdict::CouldNotTell:
        break;
    }
    result.outcome = Outcome::Unknown;
    result.note = operation->m_cancelled
            ? QStringLiteral("%1; cancelled before sending, so nothing was sent").arg(operation->m_checkNote)
            : QStringLiteral("%1, and it could not tell (%2); nothing was sent: do not retry, escalate")
                      .arg(operation->m_checkNote, answer.reason);
    operation->finish(result);
}

void SafeWriteRuntime::post(SafeRefundOperation *operation, const RefundIntent &intent,
                            const LedgerContext &context)
{
    emit operation->progress(tr("Sending the refund with its intent key…"));
    RefundOperation *post = m_provider.refund(intent);
    operation->m_refund = post;
    connect(post, &RefundOperation::finished, operation,
            [this, operation, intent, context, post](const RefundAttempt &attempt) {
                post->deleteLater();
                afterPost(operation, intent, context, attempt);
            });
}

void SafeWriteRuntime::afterPost(SafeRefundOperation *operation, const RefundIntent &intent,
                                 const LedgerContext &context, const RefundAttempt &attempt)
{
    SafeWriteResult result;
    result.exchanges = operation->m_checkedFirst + attempt.exchanges;
    result.postStatus = attempt.httpStatus;
    switch (attempt.kind) {
    case RefundAttempt::Kind::Accepted: {
        const ProviderRefund refund = attempt.refund.value_or(ProviderRefund{});
        result.refund = refund;
        result.outcome = attempt.replayed ? Outcome::AlreadyPerformed : Outcome::Performed;
        result.note = attempt.replayed
                ? QStringLiteral("the provider replayed refund %1: this key had already paid out")
                          .arg(refund.id)
                : QStringLiteral("the provider accepted refund %1").arg(refund.id);
        const QString ledgerNote = recordInLedger(intent, context, refund);
        if (!ledgerNote.isEmpty())
            result.note += QStringLiteral("; ") + ledgerNote;
        operation->finish(result);
        return;
    }
    case RefundAttempt::Kind::Refused:
        result.outcome = Outcome::NotPerformed;
        result.note = QStringLiteral("the provider refused the refund: %1").arg(attempt.reason);
        operation->finish(result);
        return;
    case RefundAttempt::Kind::Ambiguous:
        break;
    }

    // Ambiguous: the refund may or may not exist. Read before anything else.
    result.note = QStringLiteral("no clear answer to the refund (%1); looked it up").arg(attempt.reason);
    emit operation->progress(tr("No clear answer; looking the refund up at the provider…"));
    LookupOperation *lookup = m_provider.lookup(intent);
    operation->m_lookup = lookup;
    connect(lookup, &LookupOperation::progress, operation, &SafeRefundOperation::progress);
    connect(lookup, &LookupOperation::finished, operation,
            [this, operation, intent, context, result, lookup](const LookupAnswer &answer) {
                lookup->deleteLater();
                afterLookup(operation, intent, context, result, answer);
            });
}

void SafeWriteRuntime::afterLookup(SafeRefundOperation *operation, const RefundIntent &intent,
                                   const LedgerContext &context, SafeWriteResult result,
                                   const LookupAnswer &answer)
{
    result.lookupVerdict = answer.verdict;
    result.exchanges += answer.exchanges;
    switch (answer.verdict) {
    case LookupVerdict::Found: {
        result.outcome = Outcome::Performed;
        result.refund = answer.refund;
        result.note += QStringLiteral(": found refund %1").arg(answer.refund ? answer.refund->id : QString());
        if (answer.refund) {
            const QString ledgerNote = recordInLedger(intent, context, *answer.refund);
            if (!ledgerNote.isEmpty())
                result.note += QStringLiteral("; ") + ledgerNote;
        }
        break;
    }
    case LookupVerdict::NotFound:
        // After a 409 (another request with this key is running) or a cancelled POST, the
        // request may still land after the lookup: not finding it yet proves nothing.
        if (result.postStatus == 409 || operation->m_cancelled) {
            result.outcome = Outcome::Unknown;
            result.note += QStringLiteral(
                    ": nothing found yet, but the request may still be running at the provider; "
                    "do not retry, look it up again later");
        } else {
            result.outcome = Outcome::NotPerformed;
            result.note +=
                    QStringLiteral(": no refund carries this key; safe to try once more with the same key");
        }
        break;
    case LookupVerdict::CouldNotTell:
        result.outcome = Outcome::Unknown;
        result.note += QStringLiteral(": could not tell (%1); do not retry, escalate").arg(answer.reason);
        break;
    }
    operation->finish(result);
}

QString SafeWriteRuntime::recordInLedger(const RefundIntent &intent, const LedgerContext &context,
                                         const ProviderRefund &refund)
{
    if (!context.record)
        return {};
    LedgerEntry entry{intent.intentKey,
                      context.toolCallId,
                      refund.id,
                      refund.amountCents > 0 ? refund.amountCents : intent.amountCents,
                      refund.currency.isEmpty() ? intent.currency : refund.currency.toUpper(),
                      context.sellerId,
                      QDateTime::currentMSecsSinceEpoch(),
                      context.source};
    if (Expected<void> begun = m_ledger.begin(); !begun)
        return QStringLiteral("not recorded in the ledger: %1").arg(begun.message());
    Expected<bool> inserted = m_ledger.recordLedgerEntry(entry);
    if (!inserted) {
        m_ledger.rollback();
        return QStringLiteral("not recorded in the ledger: %1").arg(inserted.message());
    }
    if (Expected<void> committed = m_ledger.commit(); !committed)
        return QStringLiteral("not recorded in the ledger: %1").arg(committed.message());
    return *inserted ? QString() : QStringLiteral("the ledger already held this key");
}

SafeWriteResult SafeWriteRuntime::waitFor(SafeRefundOperation *operation)
{
    SafeWriteResult result;
    QEventLoop loop;
    connect(operation, &SafeRefundOperation::finished, &loop, [&](const SafeWriteResult &finished) {
        result = finished;
        loop.quit();
    });
    loop.exec();
    return result;
}

} // namespace verity

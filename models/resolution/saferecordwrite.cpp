#include "saferecordwrite.h"

namespace verity {

SafeRecordWrite::SafeRecordWrite(ProviderSettings settings, RecordWrite write, RecordQuery lookup,
                                 QObject *parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_write(std::move(write))
    , m_lookup(std::move(lookup))
{}

void SafeRecordWrite::start()
{
    if (m_post || m_read)
        return;
    if (!m_checkFirst) {
        post();
        return;
    }
    emit progress(tr("Looking it up again immediately before sending…"));
    m_read = new RecordLookupOperation(m_settings, m_lookup, this);
    connect(m_read, &RecordLookupOperation::progress, this, &SafeRecordWrite::progress);
    connect(m_read, &RecordLookupOperation::finished, this, &SafeRecordWrite::afterCheck);
    m_read->start();
}

void SafeRecordWrite::afterCheck(const RecordLookupAnswer &answer)
{
    m_read = nullptr;
    m_outcome.exchanges += answer.exchanges;
    if (answer.verdict == LookupVerdict::NotFound && !m_cancelled) {
        m_outcome.note =
                tr("looked up immediately before sending: none carries this key (%1); ").arg(answer.reason);
        post();
        return;
    }
    if (answer.verdict == LookupVerdict::Found) {
        // Made meanwhile (or missed before): nothing is sent.
        m_outcome.outcome = Outcome::AlreadyPerformed;
        m_outcome.record = systemRecordOf(answer.records.first());
        m_outcome.note = tr("looked up immediately before sending: found %1; nothing was sent")
                                 .arg(m_outcome.record->id);
    } else {
        m_outcome.outcome = Outcome::Unknown;
        m_outcome.note = m_cancelled ? tr("cancelled before sending; nothing was sent")
                                     : tr("could not tell immediately before sending (%1); nothing was sent, "
                                          "look it up again")
                                               .arg(answer.reason);
    }
    finish(m_outcome);
}

void SafeRecordWrite::post()
{
    emit progress(tr("Sending it with its intent key…"));
    m_post = new RecordWriteOperation(m_settings, m_write, this);
    connect(m_post, &RecordWriteOperation::finished, this, &SafeRecordWrite::afterPost);
    m_post->start();
}

void SafeRecordWrite::cancel()
{
    m_cancelled = true;
    // Whatever was in flight may still have reached the system: the operations say so.
    if (m_read)
        m_read->cancel();
    else if (m_post)
        m_post->cancel();
}

void SafeRecordWrite::afterPost(const RecordWriteAttempt &attempt)
{
    m_outcome.exchanges += attempt.exchanges;
    m_postStatus = attempt.httpStatus;
    switch (attempt.kind) {
    case RecordWriteAttempt::Kind::Accepted:
        m_outcome.outcome = attempt.replayed ? Outcome::AlreadyPerformed : Outcome::Performed;
        if (attempt.record)
            m_outcome.record = systemRecordOf(*attempt.record);
        m_outcome.note += attempt.reason;
        finish(m_outcome);
        return;
    case RecordWriteAttempt::Kind::Refused:
        m_outcome.outcome = Outcome::NotPerformed;
        m_outcome.note += attempt.reason;
        finish(m_outcome);
        return;
    case RecordWriteAttempt::Kind::Ambiguous:
        break;
    }
    // It may or may not exist: read before anything else.
    m_outcome.note += tr("no clear answer (%1); looked it up").arg(attempt.reason);
    emit progress(tr("No clear answer; looking it up…"));
    m_read = new RecordLookupOperation(m_settings, m_lookup, this);
    connect(m_read, &RecordLookupOperation::progress, this, &SafeRecordWrite::progress);
    connect(m_read, &RecordLookupOperation::finished, this, &SafeRecordWrite::afterLookup);
    m_read->start();
}

void SafeRecordWrite::afterLookup(const RecordLookupAnswer &answer)
{
    m_outcome.exchanges += answer.exchanges;
    switch (answer.verdict) {
    case LookupVerdict::Found:
        // A repeat is sent only when nothing of its intent took effect, so a record with the key
        // is this one: the oldest, if the system made it more than once.
        m_outcome.outcome = Outcome::Performed;
        m_outcome.record = systemRecordOf(answer.records.first());
        m_outcome.note += tr(": found %1").arg(m_outcome.record->id);
        break;
    case LookupVerdict::NotFound:
        // After a 409 (a request with this key is still running) or a cancelled POST, the
        // request may land after the lookup: not finding it yet proves nothing.
        if (m_postStatus == 409 || m_cancelled) {
            m_outcome.outcome = Outcome::Unknown;
            m_outcome.note +=
                    tr(": nothing found yet, but the request may still be running; do not retry, look it "
                       "up again later");
        } else {
            m_outcome.outcome = Outcome::NotPerformed;
            m_outcome.note += tr(": nothing carries this key; safe to try once more with the same key");
        }
        break;
    case LookupVerdict::CouldNotTell:
        m_outcome.outcome = Outcome::Unknown;
        m_outcome.note += tr(": could not tell (%1); do not retry, escalate").arg(answer.reason);
        break;
    }
    finish(m_outcome);
}

void SafeRecordWrite::finish(WriteOutcome outcome)
{
    if (m_finished)
        return;
    m_finished = true;
    emit finished(outcome);
}

} // namespace verity

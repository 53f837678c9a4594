#pragma once
// A pickup or a message sent again from the console, as safely as a refund (safewriteruntime.h):
// one POST with the call's intent key, never repeated; an answer that proves nothing is
// followed by a lookup before anything else, and the result is one of the four outcomes:
//   the system accepts         -> performed (already performed when it replays the key)
//   the system refuses         -> not performed
//   anything ambiguous         -> look up: found -> performed; not found -> not performed
//                                 (unknown after a 409 or a cancel: it may still land);
//                                 cannot tell -> unknown: do not retry, escalate.

#include "systemanswer.h"

#include <QObject>
#include <QPointer>

namespace verity {

class SafeRecordWrite : public QObject
{
    Q_OBJECT

public:
    SafeRecordWrite(ProviderSettings settings, RecordWrite write, RecordQuery lookup,
                    QObject *parent = nullptr);

    // Before the POST, ask whether a record with the key exists: for a key the system no longer
    // keeps, which would not recognise a repeat. Found: performed, nothing sent; not found: sent;
    // cannot tell: unknown, nothing sent.
    void checkFirst() { m_checkFirst = true; }
    void start();
    void cancel();

signals:
    void progress(const QString &step);
    void finished(const verity::WriteOutcome &outcome);

private:
    void post();
    void afterCheck(const RecordLookupAnswer &answer);
    void afterPost(const RecordWriteAttempt &attempt);
    void afterLookup(const RecordLookupAnswer &answer);
    void finish(WriteOutcome outcome);

    ProviderSettings m_settings;
    RecordWrite m_write;
    RecordQuery m_lookup;
    QPointer<RecordWriteOperation> m_post;
    QPointer<RecordLookupOperation> m_read;
    WriteOutcome m_outcome;
    int m_postStatus = 0;
    bool m_checkFirst = false;
    bool m_cancelled = false;
    bool m_finished = false;
};

} // namespace verity

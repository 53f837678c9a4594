#pragma once
// Everything kept about one escalation, reopened at any time from its card or the audit log:
// the call it is about, every lookup, write and check in order with their requests and
// responses, who and when (ISO 8601, UTC) and their hashes, where it stands, and the
// customer message for where it stands now.

#include "resolution/escalationhistory.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;

namespace verity {

class EvidenceDialog : public QDialog
{
    Q_OBJECT

public:
    explicit EvidenceDialog(const EscalationHistory &history, QWidget *parent = nullptr);

    qint64 escalationId() const { return m_escalationId; }
    QString headingText() const;
    QString standingText() const;
    QString evidenceShown() const;
    QString customerDraft() const;
    // Scrolls the evidence to the piece with this hash, its heading at the top; false when the
    // escalation holds no such piece (an audit entry citing nothing kept, say).
    bool showPiece(const QString &evidenceSha256);
    // The heading of the piece at the top of the evidence view ("=== 2. Write sent, … ===").
    QString pieceInView() const;

private:
    qint64 m_escalationId;
    QLabel *m_heading;
    QLabel *m_standing;
    QPlainTextEdit *m_evidence;
    QPlainTextEdit *m_draft;
};

} // namespace verity

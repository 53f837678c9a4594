#pragma once
// One escalation being settled: progress with a Cancel button while the provider is asked,
// then what was found, the evidence, what to tell the customer (ready to copy), and, only
// after a lookup proved the write absent, "Perform with the same key".

#include "resolution/escalationresolver.h"

#include <QDialog>
#include <QPointer>

#include <functional>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace verity {

class ResolutionDialog : public QDialog
{
    Q_OBJECT

public:
    // `confirm` asks the person before a write is repeated (a seam for tests).
    using Confirm = std::function<bool(QWidget *parent, const QString &question)>;

    ResolutionDialog(EscalationResolver &resolver, qint64 escalationId, Confirm confirm, QWidget *parent = nullptr);

    void startLookup();
    // Straight to the repeat (from a card whose lookup already proved the write absent).
    void startPerformAgain() { performAgain(); }
    QString resultText() const;
    QString customerDraft() const;
    QPushButton *performAgainButton() const { return m_performAgain; }

signals:
    void settled(const verity::ResolutionReport &report);

private:
    void run(ResolutionOperation *operation);
    void showReport(const ResolutionReport &report);
    void performAgain();

    EscalationResolver &m_resolver;
    qint64 m_escalationId;
    Confirm m_confirm;
    QPointer<ResolutionOperation> m_running; // gone if the provider settings change meanwhile
    QLabel *m_status;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QLabel *m_result;
    QPlainTextEdit *m_evidence;
    QPlainTextEdit *m_draft;
    QPushButton *m_copy;
    QPushButton *m_performAgain;
    QPushButton *m_lookAgain;
};

} // namespace verity

#pragma once

#include "domain/registryselection.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace verity {

class AuditCheckStore;
class AuditLogModel;

// The audit log as a table, with a button that checks the whole hash chain and a line that
// says, in words as well as colour, whether it is intact or where it breaks.
class AuditView : public QWidget
{
    Q_OBJECT

public:
    AuditView(AuditCheckStore &store, AuditLogModel &model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    QString statusText() const;
    // The rules each write's recorded result is read by again, as the console's import reads it.
    void setRegistries(RegistrySelection registries) { m_registries = std::move(registries); }

public slots:
    // Re-reads the log and verifies the chain; on the UI thread, because the Store is this
    // thread's (a very long log keeps the window busy for that time).
    void verifyChain();

signals:
    void chainChecked(bool intact);
    // A double-click (or Enter) on an entry of an escalation: show its evidence, at the
    // piece the entry cites when it cites one.
    void evidenceRequested(qint64 escalationId, const QString &evidenceSha256);
    void message(const QString &text);

private:
    enum class Tone { Neutral, Good, Bad, Warning };
    void setStatus(const QString &text, Tone tone);
    // A verdict stays the verdict: a problem reading the log is shown beside it, never instead.
    void setVerdict(const QString &text, Tone tone);
    void showProblem(const QString &problem);
    void updateHeadline();

    AuditCheckStore &m_store;
    AuditLogModel &m_model;
    RegistrySelection m_registries;
    QLabel *m_headline;
    QPushButton *m_verifyButton;
    QLabel *m_status;
    QString m_verdict;
    Tone m_verdictTone = Tone::Neutral;
    bool m_showingProblem = false;
    QTableView *m_table;
};

} // namespace verity

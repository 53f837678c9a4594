#include "serverwaitdialog.h"

#include "accessibletext.h"
#include "plaintextlabel.h"
#include "theme.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>
#include <QTime>
#include <QVBoxLayout>

namespace verity {

namespace {

QString now()
{
    return QTime::currentTime().toString(QStringLiteral("HH:mm:ss"));
}

} // namespace

ServerWaitDialog::ServerWaitDialog(const QString &location, const QString &reason, Probe probe, Open open,
                                   QWidget *parent)
    : QDialog(parent)
    , m_probe(std::move(probe))
    , m_open(std::move(open))
{
    setObjectName(QStringLiteral("serverWaitDialog"));
    setWindowTitle(tr("Verity — waiting for the team's database"));
    auto *layout = new QVBoxLayout(this);
    QLabel *heading = plainTextLabel(
            tr("The team's database %1 cannot be reached. Verity opens it as soon as its server answers, "
               "asking again every %2 seconds; nothing is lost meanwhile.")
                    .arg(location)
                    .arg(intervalMs / 1000),
            this);
    layout->addWidget(heading);
    m_status = plainTextLabel(tr("%1: %2.").arg(now(), reason), this);
    m_status->setObjectName(QStringLiteral("serverWaitStatus"));
    m_status->setStyleSheet(theme::status(theme::Tone::Warning, false));
    layout->addWidget(m_status);
    auto *busy = new QProgressBar(this);
    busy->setRange(0, 0);
    busy->setTextVisible(false);
    layout->addWidget(busy);
    auto *buttons = new QDialogButtonBox(this);
    QPushButton *tryNow = buttons->addButton(tr("Try now"), QDialogButtonBox::ActionRole);
    tryNow->setObjectName(QStringLiteral("serverWaitTryNow"));
    buttons->addButton(tr("Quit"), QDialogButtonBox::RejectRole);
    describeStandardButtons(buttons);
    layout->addWidget(buttons);
    connect(tryNow, &QPushButton::clicked, this, &ServerWaitDialog::ask);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ServerWaitDialog::ask);
    m_timer.start();
    resize(560, sizeHint().height());
}

QString ServerWaitDialog::statusText() const
{
    return m_status->text();
}

void ServerWaitDialog::ask()
{
    if (m_asking)
        return;
    m_asking = true;
    // The answer may take the connection's whole timeout: never on this thread.
    auto answer = std::make_shared<QString>();
    QThread *thread = QThread::create([probe = m_probe, answer] { *answer = probe(); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    connect(thread, &QThread::finished, this, [this, answer] { answered(*answer); });
    thread->start();
}

void ServerWaitDialog::answered(const QString &reason)
{
    m_asking = false;
    if (!reason.isEmpty()) {
        m_status->setText(tr("%1: %2.").arg(now(), reason));
        return;
    }
    Expected<std::unique_ptr<Store>> opened = m_open();
    if (!opened) {
        // It answers, yet the database cannot be opened (starting up, say): asked again.
        m_status->setText(tr("%1: the server answers, but the database cannot be opened yet: %2")
                                  .arg(now(), opened.message()));
        return;
    }
    m_store = std::move(*opened);
    m_timer.stop();
    accept();
}

} // namespace verity

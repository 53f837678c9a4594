#include "providersettingsdialog.h"

#include "plaintextlabel.h"
#include "provider/providerurl.h"
#include "resolution/providerconnection.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace verity {

ProviderSettingsDialog::ProviderSettingsDialog(ProviderConnection &connection, QWidget *parent)
    : QDialog(parent)
    , m_connection(connection)
{
    setObjectName(QStringLiteral("providerSettings"));
    setWindowTitle(tr("Payment provider"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_url = new QLineEdit(connection.baseUrl().toString(), this);
    m_url->setObjectName(QStringLiteral("providerUrl"));
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:12111"));
    m_key = new QLineEdit(this);
    m_key->setObjectName(QStringLiteral("providerKey"));
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setPlaceholderText(connection.hasApiKey() ? tr("(unchanged)") : tr("sk_test_…"));
    m_operator = new QLineEdit(connection.operatorName(), this);
    m_operator->setObjectName(QStringLiteral("operatorName"));
    // Room for a whole URL and a person's name: the fields are read, not guessed at.
    const int room =
            m_url->fontMetrics().horizontalAdvance(QStringLiteral("https://api.payments.example.com:8443/v1"))
            + 24;
    for (QLineEdit *field : {m_url, m_key, m_operator})
        field->setMinimumWidth(room);
    form->addRow(tr("Base URL"), m_url);
    form->addRow(tr("API key"), m_key);
    form->addRow(tr("Your name (for the audit log)"), m_operator);
    layout->addLayout(form);
    m_note = plainTextLabel(connection.urlProblem().isEmpty()
                                    ? connection.keyNote()
                                    : connection.urlProblem() + u'\n' + connection.keyNote(),
                            this, false);
    m_note->setObjectName(QStringLiteral("providerNote"));
    layout->addWidget(m_note);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &ProviderSettingsDialog::save);
    // A problem named for the URL as it was goes once the URL is edited.
    const QString keyNote = connection.keyNote();
    connect(m_url, &QLineEdit::textEdited, this, [this, keyNote] { m_note->setText(keyNote); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void ProviderSettingsDialog::save()
{
    // The one rule for a provider URL; nothing is saved unless it holds.
    const Expected<QUrl> url = parseProviderUrl(m_url->text());
    if (!url) {
        m_note->setText(tr("Base URL: %1").arg(url.message()));
        return;
    }
    // An empty field keeps the key already in use.
    // The keychain answers later, possibly after this dialog is gone.
    QPointer<QLabel> note = m_note;
    const Expected<void> saved =
            m_connection.save(*url, m_operator->text(), m_key->text(), [note](const QString &text) {
                if (note)
                    note->setText(text);
            });
    if (!saved) {
        m_note->setText(saved.message());
        return;
    }
    accept();
}

} // namespace verity

#include "providersettingsdialog.h"

#include "accessibletext.h"
#include "plaintextlabel.h"
#include "provider/apikeykind.h"
#include "provider/providerurl.h"
#include "resolution/providerconnection.h"
#include "theme.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
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
    // Fields keep their width whatever the note below says (a long refusal wraps there instead).
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_url = new QLineEdit(connection.baseUrl().toString(), this);
    m_url->setObjectName(QStringLiteral("providerUrl"));
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:12111"));
    m_key = new QLineEdit(this);
    m_key->setObjectName(QStringLiteral("providerKey"));
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setPlaceholderText(connection.hasApiKey() ? tr("(unchanged)") : tr("sk_test_… or rk_live_…"));
    m_keyKind = new QLabel(this);
    m_keyKind->setObjectName(QStringLiteral("providerKeyKindInDialog"));
    m_keyKind->setTextFormat(Qt::PlainText);
    m_keyKind->setWordWrap(true); // a long kind wraps instead of widening the dialog
    m_operator = new QLineEdit(connection.operatorName(), this);
    m_operator->setObjectName(QStringLiteral("operatorName"));
    m_operator->setAccessibleDescription(
            tr("Your name, as it goes into every audit entry and piece of evidence"));
    m_connected =
            new QCheckBox(tr("Each seller is a connected account, and its payments are direct charges on "
                             "it"),
                          this);
    m_connected->setObjectName(QStringLiteral("connectedAccounts"));
    m_connected->setToolTip(tr("Requests about a refund then name the seller's account (Stripe-Account)"));
    m_connected->setChecked(connection.settings().connectedAccounts);
    m_retention = new QSpinBox(this);
    m_retention->setObjectName(QStringLiteral("keyRetentionHours"));
    m_retention->setRange(1, 24 * 365);
    m_retention->setSuffix(tr(" hours"));
    m_retention->setValue(connection.settings().keyRetentionHours);
    m_retention->setToolTip(tr("How long the provider recognises an idempotency key (Stripe: 24 hours). A "
                               "repeat of an older call is looked up again immediately before it is sent."));
    // Room for a whole URL and a person's name: the fields are read, not guessed at.
    const int room =
            m_url->fontMetrics().horizontalAdvance(QStringLiteral("https://api.payments.example.com:8443/v1"))
            + 24;
    for (QLineEdit *field : {m_url, m_key, m_operator})
        field->setMinimumWidth(room);
    form->addRow(tr("Base URL"), m_url);
    form->addRow(tr("API key"), m_key);
    form->addRow(QString(), m_keyKind);
    form->addRow(tr("Your name (for the audit log)"), m_operator);
    form->addRow(tr("Sellers"), m_connected);
    form->addRow(tr("Keys kept for"), m_retention);
    layout->addLayout(form);
    m_note = plainTextLabel(connection.urlProblem().isEmpty()
                                    ? connection.keyNote()
                                    : connection.urlProblem() + u'\n' + connection.keyNote(),
                            this, false);
    m_note->setObjectName(QStringLiteral("providerNote"));
    m_note->setWordWrap(true);
    m_note->setMinimumWidth(room);
    layout->addWidget(m_note);
    // A longer note (a refusal) grows the dialog instead of squeezing the fields above it.
    layout->setSizeConstraint(QLayout::SetMinimumSize);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    describeStandardButtons(buttons);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &ProviderSettingsDialog::save);
    // A problem named for the URL as it was goes once the URL is edited.
    const QString keyNote = connection.keyNote();
    connect(m_url, &QLineEdit::textEdited, this, [this, keyNote] { m_note->setText(keyNote); });
    // A key typed in: what happens to it, not "No API key yet" under it.
    connect(m_key, &QLineEdit::textEdited, this, [this, keyNote](const QString &typed) {
        m_note->setText(typed.isEmpty() ? keyNote
                                        : tr("Kept in the desktop keychain when you save, and sent only to "
                                             "the base URL above."));
    });
    connect(m_key, &QLineEdit::textChanged, this, &ProviderSettingsDialog::showKeyKind);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    showKeyKind();
}

void ProviderSettingsDialog::showKeyKind()
{
    const QString key = m_key->text().isEmpty() ? m_connection.settings().apiKey : m_key->text();
    const ApiKeyKind kind = apiKeyKind(key);
    QString text = kind.describe(key);
    if (kind.isLive())
        text += tr(": real money");
    if (kind.restricted)
        text += tr("; enough for lookups and reconciliation, refused for refunds");
    m_keyKind->setText(text.left(1).toUpper() + text.mid(1));
    m_keyKind->setStyleSheet(kind.isLive() ? theme::status(theme::Tone::Bad) : QString());
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
    // The spin box holds a valid number of hours, so this is saved whenever the rest was.
    if (const Expected<void> setup =
                m_connection.saveAccountSetup(m_connected->isChecked(), m_retention->value());
        !setup) {
        m_note->setText(setup.message());
        return;
    }
    accept();
}

} // namespace verity

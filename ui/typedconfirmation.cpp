#include "typedconfirmation.h"

#include "accessibletext.h"
#include "plaintextlabel.h"
#include "theme.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace verity {

namespace {

QString amountDigits(const QString &text)
{
    QString digits;
    for (const QChar c : text) {
        if (c.isDigit() || c == u'.' || c == u',')
            digits += c;
    }
    return digits;
}

} // namespace

bool TypedConfirmation::sameAmount(const QString &typed, const QString &amount)
{
    const QString wanted = amountDigits(amount);
    return !wanted.isEmpty() && amountDigits(typed) == wanted;
}

TypedConfirmation::TypedConfirmation(const QString &question, const QString &amount, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("typedConfirmation"));
    setWindowTitle(tr("Send real money once more?"));
    auto *layout = new QVBoxLayout(this);
    QLabel *live = plainTextLabel(tr("Live account: this sends real money."), this, false);
    live->setStyleSheet(theme::liveAccount());
    layout->addWidget(live);
    layout->addWidget(plainTextLabel(question, this));
    QLabel *ask = plainTextLabel(tr("Type the amount, %1, to send it:").arg(amount), this, false);
    layout->addWidget(ask);
    m_typed = new QLineEdit(this);
    m_typed->setObjectName(QStringLiteral("typedAmount"));
    m_typed->setPlaceholderText(amount);
    m_typed->setAccessibleDescription(
            tr("Type the amount exactly to enable sending")); // as it must be typed, digits and all
    ask->setBuddy(m_typed);
    layout->addWidget(m_typed);
    auto *buttons = new QDialogButtonBox(this);
    m_send = buttons->addButton(tr("Send once more"), QDialogButtonBox::AcceptRole);
    m_send->setObjectName(QStringLiteral("sendTyped"));
    m_send->setAccessibleDescription(
            tr("Sends the write once more with the same key; enabled once the amount is "
               "typed"));
    m_send->setEnabled(false);
    m_send->setAutoDefault(false);
    QPushButton *cancel = buttons->addButton(QDialogButtonBox::Cancel);
    cancel->setDefault(true);
    describeStandardButtons(buttons);
    layout->addWidget(buttons);
    // Once the amount is typed, Enter sends: typing it was the deliberate act. Until then Enter
    // cancels.
    connect(m_typed, &QLineEdit::textChanged, this, [this, amount, cancel](const QString &text) {
        const bool typed = sameAmount(text, amount);
        m_send->setEnabled(typed);
        m_send->setDefault(typed);
        cancel->setDefault(!typed);
    });
    connect(buttons, &QDialogButtonBox::accepted, this, [this, amount] {
        if (sameAmount(m_typed->text(), amount))
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_typed->setFocus();
}

} // namespace verity

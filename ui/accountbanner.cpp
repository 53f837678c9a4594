#include "accountbanner.h"

#include "provider/apikeykind.h"
#include "theme.h"

namespace verity {

AccountBanner::AccountBanner(QWidget *parent)
    : QLabel(parent)
{
    setObjectName(QStringLiteral("liveAccountBanner"));
    setTextFormat(Qt::PlainText);
    setWordWrap(true);
    setStyleSheet(theme::liveAccount());
    hide();
}

void AccountBanner::showKey(const QString &apiKey, QLabel *keyLine)
{
    const ApiKeyKind kind = apiKeyKind(apiKey);
    const QString described = kind.describe(apiKey);
    setVisible(kind.isLive());
    QString text;
    if (kind.isLive() && kind.restricted)
        text = tr("Live account: lookups read real money. Key in use: %1, for reading only; refunds are "
                  "refused with it.")
                       .arg(described);
    else if (kind.isLive())
        text = tr("Live account: lookups read, and refunds move, real money. Key in use: %1.").arg(described);
    setText(text);
    if (keyLine) {
        keyLine->setText(tr("Provider key: %1").arg(described));
        keyLine->setStyleSheet(kind.isLive() ? theme::status(theme::Tone::Bad) : QString());
    }
}

} // namespace verity

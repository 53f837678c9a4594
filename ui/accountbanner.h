#pragma once
// Which API key the console acts with, always in view: a line in the status bar for any key,
// and, while the key is a live one, a red band across the top of the window that does not go
// away. A person about to look something up or send a refund knows whether it is real money.

#include <QLabel>

namespace verity {

class AccountBanner : public QLabel
{
    Q_OBJECT

public:
    explicit AccountBanner(QWidget *parent = nullptr);

    // Shows the band for a live key and hides it for any other; `keyLine` says the kind of any.
    void showKey(const QString &apiKey, QLabel *keyLine);
};

} // namespace verity

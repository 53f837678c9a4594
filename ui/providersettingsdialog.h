#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace verity {

class ProviderConnection;

// Provider base URL, API key (and what kind it is), the operator's name, and how the account is
// set up: sellers as connected accounts, how long keys are kept. The key goes to the desktop keychain
// (or stays in memory), never to the settings file.
class ProviderSettingsDialog : public QDialog
{
    Q_OBJECT

public:
    ProviderSettingsDialog(ProviderConnection &connection, QWidget *parent = nullptr);

private:
    void save();
    void showKeyKind();

    ProviderConnection &m_connection;
    QLineEdit *m_url;
    QLineEdit *m_key;
    QLabel *m_keyKind;
    QLineEdit *m_operator;
    QCheckBox *m_connected;
    QSpinBox *m_retention;
    QLabel *m_note;
};

} // namespace verity

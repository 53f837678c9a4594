#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;

namespace verity {

class ProviderConnection;

// Provider base URL, API key and the operator's name. The key goes to the desktop keychain
// (or stays in memory), never to the settings file.
class ProviderSettingsDialog : public QDialog
{
    Q_OBJECT

public:
    ProviderSettingsDialog(ProviderConnection &connection, QWidget *parent = nullptr);

private:
    void save();

    ProviderConnection &m_connection;
    QLineEdit *m_url;
    QLineEdit *m_key;
    QLineEdit *m_operator;
    QLabel *m_note;
};

} // namespace verity

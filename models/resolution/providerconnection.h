#pragma once
// Where the console's provider calls come from: the base URL and operator (from settings)
// and the API key (from the environment or the desktop keychain, never from a file Verity
// writes). Hands out one client and one resolver for the current settings.

#include "domain/expected.h"
#include "domain/registryselection.h"
#include "provider/providerclient.h"

#include <QObject>

#include <functional>
#include <memory>

namespace verity {

class EscalationResolver;
class ResolutionStore;

class ProviderConnection : public QObject
{
    Q_OBJECT

public:
    ProviderConnection(ResolutionStore &store, QObject *parent = nullptr);
    ~ProviderConnection() override;

    // The environment variable the command line and headless runs take the key from.
    static constexpr const char *apiKeyVariable = "VERITY_PROVIDER_API_KEY";

    QUrl baseUrl() const { return m_settings.baseUrl; }
    // URL, key (however it was found) and timeouts: for reads that are not lookups, such as a
    // reconciliation's statement.
    const ProviderSettings &settings() const { return m_settings; }
    // The name the audit records: in a team's database the connected database user, whatever
    // the settings say; elsewhere the name in the settings.
    QString operatorName() const;
    bool hasApiKey() const { return !m_settings.apiKey.isEmpty(); }
    QString keyNote() const { return m_keyNote; } // where the key came from, or why there is none
    // Why the saved URL is not used (checkProviderUrl refused it); empty when it is.
    QString urlProblem() const { return m_urlProblem; }

    // Reads URL and operator from QSettings and the key from the environment or keychain. A
    // saved URL the rule refuses is not used: no client, and urlProblem() says why.
    void load(std::function<void()> done = {});
    // Saves URL and operator to QSettings and the key to the keychain (memory only when no
    // keychain is available; the note says so). An empty key keeps the one in use. A URL
    // checkProviderUrl() refuses changes nothing, saves nothing, and is the error returned
    // (`done` is not called).
    Expected<void> save(const QUrl &baseUrl, const QString &operatorName, const QString &apiKey,
                        std::function<void(const QString &note)> done = {});

    // How the provider's account is set up (ProviderSettings: connected accounts, key
    // retention), saved in QSettings; the client is rebuilt with them.
    Expected<void> saveAccountSetup(bool connectedAccounts, int keyRetentionHours);

    // Null while no URL is set.
    EscalationResolver *resolver();
    // The registries that name where each tool's writes can be looked up.
    void setRegistries(RegistrySelection registries);

signals:
    void changed();
    // A key saved where no desktop keychain could keep it: it lasts for this session only.
    void keyNotKept(const QString &why);

private:
    void rebuild();

    ResolutionStore &m_store;
    ProviderSettings m_settings;
    QString m_operator;
    QString m_keyNote;
    RegistrySelection m_registries;
    QString m_urlProblem;
    std::unique_ptr<ProviderClient> m_client;
    std::unique_ptr<EscalationResolver> m_resolver;
};

QString defaultOperatorName();

} // namespace verity

#include "providerconnection.h"

#include "domain/hiddencharacters.h"
#include "escalationresolver.h"
#include "operatoridentity.h"
#include "provider/providerurl.h"
#include "store/store.h"

#include <QSettings>

#include <qt6keychain/keychain.h>

namespace verity {

namespace {

const QString keychainService = QStringLiteral("dev.verity.Console");

QString keychainAccount(const QUrl &baseUrl)
{
    return QStringLiteral("provider-api-key:") + baseUrl.toString(QUrl::RemoveUserInfo);
}

} // namespace

QString defaultOperatorName()
{
    const QString user = qEnvironmentVariable("USER", qEnvironmentVariable("USERNAME"));
    return user.isEmpty() ? QStringLiteral("operator") : user;
}

ProviderConnection::ProviderConnection(ResolutionStore &store, QObject *parent)
    : QObject(parent)
    , m_store(store)
{
    m_operator = defaultOperatorName();
}

ProviderConnection::~ProviderConnection() = default;

void ProviderConnection::load(std::function<void()> done)
{
    QSettings settings;
    // The settings file may have been written by hand, or by a version without the rule.
    const QString saved = settings.value(QStringLiteral("provider/baseUrl")).toString();
    const Expected<QUrl> checked = checkProviderUrl(QUrl(saved.trimmed()));
    m_settings.baseUrl = checked ? *checked : QUrl();
    m_urlProblem = checked || saved.trimmed().isEmpty()
            ? QString()
            : tr("The saved provider URL is not used: %1").arg(checked.message());
    m_operator = settings.value(QStringLiteral("provider/operator"), defaultOperatorName()).toString();
    m_settings.connectedAccounts =
            settings.value(QStringLiteral("provider/connectedAccounts"), false).toBool();
    // A hand-edited retention that is not a number of hours falls back to Stripe's.
    bool validHours = false;
    const int hours = settings.value(QStringLiteral("provider/keyRetentionHours"), 24).toInt(&validHours);
    m_settings.keyRetentionHours = validHours && hours >= 1 && hours <= 24 * 365 ? hours : 24;
    const QString fromEnvironment = qEnvironmentVariable(apiKeyVariable);
    if (!fromEnvironment.isEmpty() || m_settings.baseUrl.isEmpty()) {
        m_settings.apiKey = fromEnvironment;
        m_keyNote = fromEnvironment.isEmpty() ? tr("No API key yet.")
                                              : tr("API key from %1.").arg(QLatin1String(apiKeyVariable));
        rebuild();
        if (done)
            done();
        return;
    }
    auto *job = new QKeychain::ReadPasswordJob(keychainService, this);
    job->setKey(keychainAccount(m_settings.baseUrl));
    connect(job, &QKeychain::Job::finished, this, [this, job, done] {
        if (job->error() == QKeychain::NoError) {
            m_settings.apiKey = job->textData();
            m_keyNote = tr("API key from the desktop keychain.");
        } else if (job->error() == QKeychain::EntryNotFound) {
            m_keyNote =
                    tr("No API key saved for %1 yet.").arg(m_settings.baseUrl.toString(QUrl::RemoveUserInfo));
        } else {
            // Without a keychain a saved key lasted only for its session: say what to do now.
            m_keyNote =
                    tr("No API key: the desktop keychain could not be read (%1). Enter the key again under "
                       "Provider settings, or set %2 before starting Verity.")
                            .arg(job->errorString(), QLatin1String(apiKeyVariable));
        }
        job->deleteLater();
        rebuild();
        if (done)
            done();
    });
    job->start();
}

Expected<void> ProviderConnection::save(const QUrl &baseUrl, const QString &operatorName,
                                        const QString &apiKey, std::function<void(const QString &note)> done)
{
    if (const Expected<QUrl> checked = checkProviderUrl(baseUrl); !checked)
        return makeError(QStringLiteral("Base URL: %1").arg(checked.message()));
    // The name goes into every audit entry and piece of evidence this console writes. In a team's
    // database that is the database user, and a name that is someone else's is refused, as the
    // command line refuses it, rather than kept and silently not used.
    const bool team = !m_store.sessionUser().isEmpty();
    if (team) {
        if (const Expected<QString> who = operatorNameFor(m_store, operatorName); !who)
            return makeError(InputErrc::Invalid, QStringLiteral("Your name: %1").arg(who.message()));
    } else if (const Expected<void> name =
                       checkPersonName(QStringLiteral("Your name"), operatorName.trimmed());
               !name) {
        return name.error();
    }
    m_urlProblem.clear();
    QSettings settings;
    settings.setValue(QStringLiteral("provider/baseUrl"), baseUrl.toString(QUrl::RemoveUserInfo));
    // The desk's own name stays as it was: a team's database names its user anyway.
    if (!team)
        settings.setValue(QStringLiteral("provider/operator"), operatorName);
    m_settings.baseUrl = baseUrl;
    if (!team)
        m_operator = operatorName.trimmed().isEmpty() ? defaultOperatorName() : operatorName.trimmed();
    if (!apiKey.isEmpty())
        m_settings.apiKey = apiKey;
    rebuild();
    if (apiKey.isEmpty() || !qEnvironmentVariableIsEmpty(apiKeyVariable)) {
        if (!apiKey.isEmpty())
            m_keyNote = tr("API key from %1.").arg(QLatin1String(apiKeyVariable));
        if (done)
            done(m_keyNote);
        return {};
    }
    auto *job = new QKeychain::WritePasswordJob(keychainService, this);
    job->setKey(keychainAccount(baseUrl));
    job->setTextData(apiKey);
    connect(job, &QKeychain::Job::finished, this, [this, job, done] {
        // Without a keychain the key lives in memory for this session only: it is never
        // written in plain text to the settings file or the database.
        m_keyNote = job->error() == QKeychain::NoError
                ? tr("API key saved in the desktop keychain.")
                : tr("No desktop keychain (%1): the API key is kept for this session only.")
                          .arg(job->errorString());
        job->deleteLater();
        if (job->error() != QKeychain::NoError)
            emit keyNotKept(m_keyNote);
        if (done)
            done(m_keyNote);
    });
    job->start();
    return {};
}

Expected<void> ProviderConnection::saveAccountSetup(bool connectedAccounts, int keyRetentionHours)
{
    if (keyRetentionHours < 1 || keyRetentionHours > 24 * 365)
        return makeError(QStringLiteral("Keys kept for: a whole number of hours from 1 to %1; got %2")
                                 .arg(24 * 365)
                                 .arg(keyRetentionHours));
    QSettings settings;
    settings.setValue(QStringLiteral("provider/connectedAccounts"), connectedAccounts);
    settings.setValue(QStringLiteral("provider/keyRetentionHours"), keyRetentionHours);
    m_settings.connectedAccounts = connectedAccounts;
    m_settings.keyRetentionHours = keyRetentionHours;
    rebuild();
    return {};
}

EscalationResolver *ProviderConnection::resolver()
{
    return m_resolver.get();
}

void ProviderConnection::setRegistries(RegistrySelection registries)
{
    m_registries = std::move(registries);
    if (m_resolver)
        m_resolver->setRegistries(m_registries);
}

QString ProviderConnection::operatorName() const
{
    const QString user = m_store.sessionUser();
    return user.isEmpty() ? m_operator : user;
}

void ProviderConnection::rebuild()
{
    m_resolver.reset();
    m_client.reset();
    if (!m_settings.baseUrl.isEmpty()) {
        m_client = std::make_unique<ProviderClient>(m_settings);
        m_resolver = std::make_unique<EscalationResolver>(m_store, *m_client, operatorName());
        m_resolver->setRegistries(m_registries);
    }
    emit changed();
}

} // namespace verity

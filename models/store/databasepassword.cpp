#include "databasepassword.h"

#include <QEventLoop>

#include <qt6keychain/keychain.h>

namespace verity {

namespace {

const QString keychainService = QStringLiteral("dev.verity.Database");

// The keychain answers asynchronously; a store opens synchronously, so it waits here.
template<typename Job>
void waitFor(Job &job)
{
    QEventLoop loop;
    QObject::connect(&job, &QKeychain::Job::finished, &loop, &QEventLoop::quit);
    job.start();
    loop.exec();
}

QString keychainTrouble(const QKeychain::Job &job)
{
    switch (job.error()) {
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
        return QStringLiteral("no keychain service is running on this desktop");
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return QStringLiteral("the keychain refused access");
    default:
        // QtKeychain says "Unknown error" when no secret service answers on the session bus.
        return job.errorString() == QLatin1String("Unknown error")
                ? QStringLiteral("no keychain service answered on this desktop")
                : job.errorString();
    }
}

} // namespace

Expected<std::optional<QString>> keychainDatabasePassword(const PostgresTarget &target)
{
    QKeychain::ReadPasswordJob job(keychainService);
    job.setAutoDelete(false);
    job.setKey(target.display());
    waitFor(job);
    if (job.error() == QKeychain::EntryNotFound)
        return std::optional<QString>();
    if (job.error() != QKeychain::NoError)
        return makeError(QStringLiteral("the desktop keychain cannot be read: %1").arg(keychainTrouble(job)));
    return std::optional<QString>(job.textData());
}

Expected<void> saveKeychainDatabasePassword(const PostgresTarget &target, const QString &password)
{
    QKeychain::WritePasswordJob job(keychainService);
    job.setAutoDelete(false);
    job.setKey(target.display());
    job.setTextData(password);
    waitFor(job);
    if (job.error() != QKeychain::NoError)
        return makeError(QStringLiteral("the desktop keychain cannot keep it: %1").arg(keychainTrouble(job)));
    return {};
}

} // namespace verity

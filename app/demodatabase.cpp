#include "demodatabase.h"

#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "store/storefactory.h"

#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace verity {

Expected<QString> buildDemoDatabase(const QString &path, const RegistrySelection &registries)
{
    QString target = path;
    if (target.isEmpty()) {
        target = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                + QStringLiteral("/demo.sqlite");
        for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
            if (QFileInfo::exists(target + suffix) && !QFile::remove(target + suffix))
                return makeError(
                        QStringLiteral("%1: cannot replace the old demo database").arg(target + suffix));
        }
    } else if (QFileInfo::exists(target)) {
        return makeError(
                QStringLiteral("%1: the file exists; --demo builds a fresh database and will not overwrite "
                               "a file. Remove it or name another path.")
                        .arg(target));
    }

    Expected<std::unique_ptr<Store>> store = openStore(target);
    if (!store)
        return store.error();
    TranscriptImporter importer(**store, registries);
    const ImportReport report = importer.importFile(demoDataResource());
    if (!report.clean())
        return makeError(QStringLiteral("the demo data did not import cleanly: %1").arg(report.summary()));
    return (*store)->location();
}

} // namespace verity

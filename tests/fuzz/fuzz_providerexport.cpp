// libFuzzer harness: the provider's CSV export (models/finance/providerexport.h) and the RFC
// 4180 reader under it, in the ledger's currency and in the file's own. A finance person picks
// the file; whatever is in it must give a statement or a message, never a crash.

#include "finance/csvtable.h"
#include "finance/providerexport.h"

#include <QByteArray>

#include <cstddef>
#include <cstdint>
#include <limits>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const verity::Period always{std::numeric_limits<qint64>::min(), std::numeric_limits<qint64>::max()};
    (void)verity::parseCsv(bytes, QStringLiteral("fuzz.csv"), verity::CsvHeader::FirstRecord);
    (void)verity::parseProviderExport(bytes, QStringLiteral("fuzz.csv"), always, QStringLiteral("USD"));
    (void)verity::parseProviderExport(bytes, QStringLiteral("fuzz.csv"), always, QString());
    return 0;
}

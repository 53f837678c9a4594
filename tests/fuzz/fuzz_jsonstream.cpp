// libFuzzer harness: the streaming JSON reader (models/import/jsonstream.h) over the bytes as a
// device, once for a top-level array and once for the "simulations" member of an object, and the
// shape sniffer that chooses between them.

#include "import/jsonstream.h"

#include <QBuffer>

#include <cstddef>
#include <cstdint>

using nlohmann::json;

namespace {

void stream(const QByteArray &bytes, const QString &member)
{
    QBuffer device;
    device.setData(bytes);
    if (!device.open(QIODevice::ReadOnly))
        return;
    verity::JsonElementStream reader(device, member);
    const verity::Expected<void> done = reader.run([](json element, qint64 offset) {
        (void)element.size();
        (void)offset;
        return true;
    });
    (void)done;
    (void)reader.header().size();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char *>(data),
                                                     static_cast<qsizetype>(size));
    const verity::JsonShape shape = verity::sniffJsonShape(bytes);
    (void)shape.keys.size();
    stream(bytes, QString());
    stream(bytes, QStringLiteral("simulations"));
    return 0;
}

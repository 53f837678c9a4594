// libFuzzer harness: the streaming JSON reader (models/import/jsonstream.h) over the bytes as a
// device, once for a top-level array and once for the members the transcript reader streams
// ("simulations", "resourceSpans"), and the shape sniffer that chooses between them.

#include "import/jsonstream.h"

#include <QBuffer>

#include <cstddef>
#include <cstdint>

using nlohmann::json;

namespace {

void stream(const QByteArray &bytes, const QStringList &members)
{
    QBuffer device;
    device.setData(bytes);
    if (!device.open(QIODevice::ReadOnly))
        return;
    verity::JsonElementStream reader(device, members);
    const verity::Expected<void> done = reader.run([&reader](json element, qint64 offset) {
        (void)element.size();
        (void)offset;
        (void)reader.member().size();
        return true;
    });
    (void)done;
    (void)reader.header().size();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes =
            QByteArray::fromRawData(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const verity::JsonShape shape = verity::sniffJsonShape(bytes);
    (void)shape.keys.size();
    stream(bytes, {});
    stream(bytes, {QStringLiteral("simulations"), QStringLiteral("resourceSpans")});
    return 0;
}

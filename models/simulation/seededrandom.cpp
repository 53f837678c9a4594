#include "seededrandom.h"

namespace verity {

QRandomGenerator seededGenerator(quint32 seed, RandomStream stream, quint32 index, quint32 sub)
{
    // QRandomGenerator feeds these through std::seed_seq into mt19937: specified exactly by
    // the C++ standard, so the same numbers on every platform.
    const quint32 words[] = {seed, quint32(stream), index, sub, 0x5eed5eedu};
    return QRandomGenerator(words, qsizetype(std::size(words)));
}

QString uuid4From(QRandomGenerator &random)
{
    QByteArray bytes(16, '\0');
    for (int i = 0; i < 16; ++i)
        bytes[i] = char(random.bounded(256));
    bytes[6] = char((quint8(bytes[6]) & 0x0f) | 0x40);
    bytes[8] = char((quint8(bytes[8]) & 0x3f) | 0x80);
    const QString hex = QString::fromLatin1(bytes.toHex());
    return hex.mid(0, 8) + u'-' + hex.mid(8, 4) + u'-' + hex.mid(12, 4) + u'-' + hex.mid(16, 4) + u'-'
            + hex.mid(20);
}

} // namespace verity

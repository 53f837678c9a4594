#include "jsonstream.h"

#include "domain/jsontext.h"
#include "domain/sha256.h"

#include <algorithm>
#include <istream>
#include <streambuf>
#include <vector>

namespace verity {

using nlohmann::json;

namespace {

// A std::streambuf over a QIODevice that knows how many bytes the parser has taken.
class DeviceBuffer : public std::streambuf
{
public:
    DeviceBuffer(QIODevice &device, Sha256Stream *hash)
        : m_device(device)
        , m_hash(hash)
    {
        setg(m_buffer, m_buffer, m_buffer);
    }

    qint64 consumed() const { return m_before + (gptr() - eback()); }

protected:
    int_type underflow() override
    {
        if (gptr() < egptr())
            return traits_type::to_int_type(*gptr());
        m_before += egptr() - eback();
        const qint64 read = m_device.read(m_buffer, sizeof m_buffer);
        if (read <= 0) {
            setg(m_buffer, m_buffer, m_buffer);
            return traits_type::eof();
        }
        if (m_hash)
            m_hash->add(QByteArray::fromRawData(m_buffer, qsizetype(read)));
        setg(m_buffer, m_buffer, m_buffer + read);
        return traits_type::to_int_type(*gptr());
    }

private:
    QIODevice &m_device;
    Sha256Stream *m_hash;
    char m_buffer[1 << 16];
    qint64 m_before = 0;
};

// SAX events in, one built element at a time out. Containers outside the streamed array are
// only counted, never built.
class ElementBuilder : public nlohmann::json_sax<json>
{
public:
    ElementBuilder(const DeviceBuffer &buffer, const QStringList &members, const QStringList &kept,
                   const JsonElementStream::Sink &sink, json &header)
        : m_buffer(buffer)
        , m_sink(sink)
        , m_header(header)
    {
        for (const QString &member : members)
            m_members.push_back(member.toStdString());
        for (const QString &member : kept)
            m_kept.push_back(member.toStdString());
    }

    std::string currentMember;

    bool stopped = false;
    QString error;

    bool null() override { return value(json()); }
    bool boolean(bool v) override { return value(json(v)); }
    bool number_integer(number_integer_t v) override { return value(json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return value(json(v)); }
    bool number_float(number_float_t v, const string_t &) override { return value(json(v)); }
    bool string(string_t &v) override { return value(json(std::move(v))); }
    bool binary(binary_t &v) override { return value(json::binary(std::move(v))); }

    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(string_t &k) override
    {
        if (m_building)
            m_key = std::move(k);
        else if (m_depth == 1)
            m_rootKey = std::move(k);
        return true;
    }

    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &e) override
    {
        error = QStringLiteral("byte %1: not valid JSON: %2")
                        .arg(position)
                        .arg(jsonParseErrorReason(e.what()));
        return false;
    }

private:
    // The depth at which streamed elements sit: 1 in a top-level array, 2 in the member's array.
    bool atElementDepth() const
    {
        if (m_members.empty())
            return m_depth == 1 && m_rootIsArray;
        return m_depth == 2 && m_inMember;
    }

    bool value(json v)
    {
        if (m_building)
            return add(std::move(v));
        if (atElementDepth())
            return handOn(std::move(v), m_buffer.consumed());
        if (m_depth == 1 && !m_rootIsArray)
            m_header[m_rootKey] = std::move(v);
        return true;
    }

    bool open(json container)
    {
        // Two levels for the document around the elements (τ²'s object and its list).
        if (m_depth >= maxJsonNesting + 2) {
            error = QStringLiteral("byte %1: %2").arg(m_buffer.consumed()).arg(tooDeepReason());
            return false;
        }
        const bool isArray = container.is_array();
        if (m_depth == 0)
            m_rootIsArray = isArray;
        const bool kept = !m_building && m_depth == 1 && !m_rootIsArray
                && std::find(m_kept.begin(), m_kept.end(), m_rootKey) != m_kept.end();
        if (!m_building && (atElementDepth() || kept)) {
            m_building = true;
            m_buildingHeader = kept;
            m_elementStart = m_buffer.consumed() - 1;
            m_element = std::move(container);
            m_stack.push_back(&m_element);
        } else if (m_building) {
            json *child = nullptr;
            json &parent = *m_stack.back();
            if (parent.is_array()) {
                parent.push_back(std::move(container));
                child = &parent.back();
            } else {
                child = &(parent[m_key] = std::move(container));
            }
            m_stack.push_back(child);
        }
        if (!m_building && m_depth == 1 && !m_rootIsArray && isArray
            && std::find(m_members.begin(), m_members.end(), m_rootKey) != m_members.end()) {
            m_inMember = true;
            currentMember = m_rootKey;
        }
        ++m_depth;
        return true;
    }

    bool close()
    {
        --m_depth;
        if (m_building) {
            m_stack.pop_back();
            if (m_stack.empty()) {
                m_building = false;
                if (m_buildingHeader) {
                    m_buildingHeader = false;
                    m_header[m_rootKey] = std::move(m_element);
                    m_element = json();
                    return true;
                }
                return handOn(std::move(m_element), m_elementStart);
            }
        } else if (m_depth == 1) {
            m_inMember = false;
        }
        return true;
    }

    bool add(json v)
    {
        json &parent = *m_stack.back();
        if (parent.is_array())
            parent.push_back(std::move(v));
        else
            parent[m_key] = std::move(v);
        return true;
    }

    bool handOn(json element, qint64 offset)
    {
        m_element = json();
        if (!m_sink(std::move(element), offset)) {
            stopped = true;
            return false;
        }
        return true;
    }

    const DeviceBuffer &m_buffer;
    std::vector<std::string> m_members;
    std::vector<std::string> m_kept;
    bool m_buildingHeader = false;
    const JsonElementStream::Sink &m_sink;
    json &m_header;
    int m_depth = 0;
    bool m_rootIsArray = false;
    bool m_inMember = false;
    std::string m_rootKey;
    bool m_building = false;
    qint64 m_elementStart = 0;
    json m_element;
    std::vector<json *> m_stack;
    std::string m_key;
};

// Notes the shape of a document's first bytes and stops as soon as it has enough.
class ShapeSniffer : public nlohmann::json_sax<json>
{
public:
    JsonShape shape;

    bool null() override { return scalar(); }
    bool boolean(bool) override { return scalar(); }
    bool number_integer(number_integer_t) override { return scalar(); }
    bool number_unsigned(number_unsigned_t) override { return scalar(); }
    bool number_float(number_float_t, const string_t &) override { return scalar(); }
    bool string(string_t &) override { return scalar(); }
    bool binary(binary_t &) override { return scalar(); }
    bool start_object(std::size_t) override
    {
        if (m_depth == 0)
            shape.isObject = true;
        if (m_depth == 1 && shape.isArray)
            m_inFirstElement = !m_sawElement;
        return open();
    }
    bool start_array(std::size_t) override
    {
        if (m_depth == 0)
            shape.isArray = true;
        return open();
    }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t &k) override
    {
        if (m_depth == 1 && shape.isObject)
            shape.keys.append(fromUtf8String(k));
        else if (m_depth == 2 && m_inFirstElement)
            shape.firstElementKeys.append(fromUtf8String(k));
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override
    {
        return false;
    }

private:
    bool scalar()
    {
        if (m_depth == 1 && shape.isArray)
            m_sawElement = true;
        return true;
    }
    bool open()
    {
        ++m_depth;
        return true;
    }
    bool close()
    {
        --m_depth;
        if (m_depth == 1 && shape.isArray) {
            m_sawElement = true;
            m_inFirstElement = false;
            return false; // the first element is all a shape needs
        }
        return m_depth > 0;
    }

    int m_depth = 0;
    bool m_sawElement = false;
    bool m_inFirstElement = false;
};

} // namespace

JsonElementStream::JsonElementStream(QIODevice &device, QStringList members)
    : m_device(device)
    , m_members(std::move(members))
{}

Expected<void> JsonElementStream::run(const Sink &sink)
{
    DeviceBuffer buffer(m_device, m_hash);
    std::istream stream(&buffer);
    const ElementBuilder *self = nullptr;
    const Sink named = [this, &sink, &self](json element, qint64 offset) {
        m_current = fromUtf8String(self->currentMember);
        return sink(std::move(element), offset);
    };
    ElementBuilder builder(buffer, m_members, m_kept, named, m_header);
    self = &builder;
    try {
        json::sax_parse(stream, &builder);
    } catch (const std::exception &e) {
        // A sink or a value the library refuses (depth, size): never out of this function.
        builder.error = QStringLiteral("byte %1: %2").arg(buffer.consumed()).arg(QString::fromUtf8(e.what()));
    }
    m_bytesRead = buffer.consumed();
    m_stopped = builder.stopped;
    m_current = fromUtf8String(builder.currentMember);
    if (!builder.error.isEmpty())
        return makeError(builder.error);
    return {};
}

JsonShape sniffJsonShape(const QByteArray &head)
{
    ShapeSniffer sniffer;
    try {
        json::sax_parse(head.constBegin(), head.constEnd(), &sniffer);
    } catch (const std::exception &) {
        // a truncated head is expected; what was seen is the answer
    }
    return sniffer.shape;
}

} // namespace verity

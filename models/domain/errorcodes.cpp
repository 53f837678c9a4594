#include "expected.h"

#include <string>

namespace verity {

namespace {

// One category per area: its name says which part of Verity the code comes from.
template<typename Code>
class Category final : public std::error_category
{
public:
    Category(const char *name, std::string (*describe)(Code))
        : m_name(name)
        , m_describe(describe)
    {}
    const char *name() const noexcept override { return m_name; }
    std::string message(int value) const override { return m_describe(Code(value)); }

private:
    const char *m_name;
    std::string (*m_describe)(Code);
};

std::string describe(Errc)
{
    return "failed";
}

std::string describe(InputErrc code)
{
    switch (code) {
    case InputErrc::Invalid:
        return "not what was expected";
    case InputErrc::Missing:
        return "not there";
    case InputErrc::Unreadable:
        return "cannot be read or written";
    }
    return "input error";
}

std::string describe(StoreErrc code)
{
    switch (code) {
    case StoreErrc::Unwritable:
        return "the store may not be written";
    case StoreErrc::NewerSchema:
        return "made by a newer Verity";
    case StoreErrc::OlderSchema:
        return "needs an upgrade";
    case StoreErrc::NotADatabase:
        return "not a Verity database";
    case StoreErrc::Unreachable:
        return "the database cannot be reached now";
    case StoreErrc::RefusedByRole:
        return "refused to this role";
    case StoreErrc::Conflict:
        return "ended by a conflict; try again";
    case StoreErrc::ClaimedByOther:
        return "claimed by someone else";
    }
    return "store error";
}

std::string describe(ProviderErrc code)
{
    switch (code) {
    case ProviderErrc::Unreachable:
        return "the provider could not be reached";
    case ProviderErrc::Refused:
        return "the provider refused";
    case ProviderErrc::BadAnswer:
        return "the provider's answer cannot be read";
    case ProviderErrc::Cancelled:
        return "cancelled";
    }
    return "provider error";
}

} // namespace

const std::error_category &errcCategory()
{
    static const Category<Errc> category("verity", describe);
    return category;
}

const std::error_category &inputErrcCategory()
{
    static const Category<InputErrc> category("verity.input", describe);
    return category;
}

const std::error_category &storeErrcCategory()
{
    static const Category<StoreErrc> category("verity.store", describe);
    return category;
}

const std::error_category &providerErrcCategory()
{
    static const Category<ProviderErrc> category("verity.provider", describe);
    return category;
}

} // namespace verity

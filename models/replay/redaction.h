#pragma once
// Placeholder: being written.
namespace verity {
}

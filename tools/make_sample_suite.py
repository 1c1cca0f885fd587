"""Writes suites/data/sample.jsonl, the labelled items that ship inside the package.

Every item is written here by hand: a question, a reference answer, a completion and whether the completion's
final answer matches the reference. They cover VerifyBench's four answer types and the equivalent forms a
verifier must accept (fractions and decimals, reordered expressions, intervals, thousands separators,
option letters in several spellings) and the near misses it must reject. Run from the repository root:
``python tools/make_sample_suite.py``.
"""

import json
from pathlib import Path

# (answer_type, question, reference, completion, correct)
ITEMS = [
    # Numeric
    ("A1 - Integer", "What is 17 + 25?", "42", "17 + 25 = 42.\nThe answer is 42.", True),
    ("A1 - Integer", "What is 17 + 25?", "42", "17 + 25 = 32.\nThe answer is 32.", False),
    ("A1 - Integer", "A farmer has 1200 sheep and buys 234 more. How many sheep?", "1434",
     "1200 + 234 = 1,434 sheep.\n#### 1,434", True),
    ("A1 - Integer", "How many dollars is 3 books at $6 each?", "18", "3 * 6 = 18, so the answer is $18.", True),
    ("A1 - Integer", "How many dollars is 3 books at $6 each?", "18", "3 * 6 = 24\n#### 24", False),
    ("A3 - Float", "What is half of 7?", "3.5", "Half of 7 is $\\frac{7}{2}$, so the answer is \\boxed{\\frac{7}{2}}.", True),
    ("A3 - Float", "What is 1 divided by 4?", "0.25", "1/4 = 0.25. \\boxed{0.25}", True),
    ("A3 - Float", "What is 1 divided by 4?", "0.25", "1/4 = 0.4. \\boxed{0.4}", False),
    ("A4 - Radical", "What is the side of a square with area 8?", "2\\sqrt{2}",
     "The side is $\\sqrt{8} = 2\\sqrt{2}$.\n\nFinal Answer: $\\boxed{\\sqrt{8}}$", True),
    ("A4 - Radical", "What is the side of a square with area 8?", "2\\sqrt{2}", "The side is \\boxed{4}.", False),
    ("A2 - Constant", "What is the circumference of a circle of radius 1?", "2\\pi", "C = 2\\pi r, so \\boxed{2\\pi}.", True),
    ("A2 - Constant", "What is the circumference of a circle of radius 1?", "2\\pi", "C = \\pi r^2, so \\boxed{\\pi}.", False),
    ("A1 - Integer", "Compute 2^10.", "1024", "Doubling ten times gives 1024.", True),
    # Expression
    ("B1 - Algebraic Formula", "Expand (x+1)^2.", "x^2+2x+1", "(x+1)^2 = \\boxed{1 + 2x + x^2}", True),
    ("B1 - Algebraic Formula", "Expand (x+1)^2.", "x^2+2x+1", "(x+1)^2 = \\boxed{x^2 + 1}", False),
    ("B1 - Algebraic Formula", "Simplify 2(a+b) - a.", "a+2b", "2a + 2b - a = a + 2b. The answer is $a+2b$.", True),
    ("B3 - Interval", "Solve x^2 < 4.", "(-2, 2)", "The solution set is \\boxed{(-2,2)}.", True),
    ("B3 - Interval", "Solve x^2 < 4.", "(-2, 2)", "The solution set is \\boxed{[-2,2]}.", False),
    ("B4 - Set", "Find all roots of x^2 - 5x + 6.", "\\{2, 3\\}", "The roots are \\boxed{3, 2}.", True),
    ("B4 - Set", "Find all roots of x^2 - 5x + 6.", "\\{2, 3\\}", "The roots are \\boxed{2, 4}.", False),
    ("B2 - Equation", "Give the line through (0,1) with slope 2.", "y = 2x + 1", "So \\boxed{y = 1 + 2x}.", True),
    ("B2 - Equation", "Give the line through (0,1) with slope 2.", "y = 2x + 1", "So \\boxed{y = 2x - 1}.", False),
    ("B5 - Matrix", "Give the 2x2 identity matrix.", "\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}",
     "\\boxed{\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}}", True),
    # Multi-choice
    ("C1 - Single Choice", "Which is prime? (A) 4 (B) 6 (C) 7 (D) 9", "C", "7 has no divisors but 1 and 7.\nThe answer is (C).", True),
    ("C1 - Single Choice", "Which is prime? (A) 4 (B) 6 (C) 7 (D) 9", "C", "9 is odd.\n\\boxed{D}", False),
    ("C1 - Single Choice", "Which is prime? (A) 4 (B) 6 (C) 7 (D) 9", "(C)", "Answer: C", True),
    ("C1 - Single Choice", "Which is largest? (A) 0.5 (B) 2/3 (C) 3/5 (D) 0.6", "B",
     "2/3 = 0.667 is the largest.\n</think>\n\nB", True),
    ("C1 - Single Choice", "Which is largest? (A) 0.5 (B) 2/3 (C) 3/5 (D) 0.6", "B", "\\boxed{\\text{(A)}}", False),
    ("C4 - Finite state selection", "Is 91 prime? Answer Yes or No.", "No", "91 = 7 * 13, so the answer is No.", True),
    ("C4 - Finite state selection", "Is 91 prime? Answer Yes or No.", "No", "91 looks prime.\n**Answer:** Yes", False),
    ("C4 - Finite state selection", "Does the rule prove the claim? Answer proved or disproved.", "disproved",
     "Rule 2 overrides rule 1.\n\nThe final answer is \\boxed{disproved}.", True),
    ("C4 - Finite state selection", "Is the statement true or false: 0 is even.", "True", "0 = 2*0.\nAnswer: true", True),
    # String
    ("D1 - Specific", "What is the capital of France?", "Paris", "The capital is Paris.\nThe answer is Paris.", True),
    ("D1 - Specific", "What is the capital of France?", "Paris", "The answer is Lyon.", False),
    ("D1 - Specific", "Which day follows Monday?", "Tuesday", "**Answer:** tuesday", True),
    ("D1 - Specific", "Which day follows Monday?", "Tuesday", "**Answer:** Wednesday", False),
    ("D2 - Semantic", "Sort the words: pear apple.", "apple pear", "Alphabetical order: \\boxed{\\text{apple pear}}", True),
    ("D2 - Semantic", "Sort the words: pear apple.", "apple pear", "Alphabetical order: \\boxed{\\text{pear apple}}", False),
    # Equivalent in words or units: a human accepts them; a rule verifier is expected to miss them.
    ("A3 - Float", "What fraction of the pizza is left after eating half?", "\\frac{1}{2}",
     "Half was eaten, so the answer is one half.", True),
    ("A1 - Integer", "How many minutes are in 3 hours?", "180", "3 hours is 180 minutes.\nThe answer is three hours.", True),
    # Worked-solution references: the final answer is the reference's last \boxed{}
    ("A1 - Integer", "What is the sum of the first 10 positive integers?",
     "The sum is $\\frac{10 \\cdot 11}{2} = \\boxed{55}$.", "Pairing 1+10, 2+9, ... gives 5 pairs of 11.\n\\boxed{55}", True),
    ("A1 - Integer", "What is the sum of the first 10 positive integers?",
     "The sum is $\\frac{10 \\cdot 11}{2} = \\boxed{55}$.", "Adding them gives \\boxed{45}.", False),
]


def main() -> None:
    out = Path(__file__).resolve().parent.parent / "suites" / "data" / "sample.jsonl"
    with out.open("w", encoding="utf-8") as fh:
        for i, (answer_type, question, reference, completion, correct) in enumerate(ITEMS):
            record = {
                "question_id": f"sample-q{i:03d}",
                "completion_id": f"sample-{i:03d}",
                "question": question,
                "answer": reference,
                "completion": completion,
                "gold_correct": correct,
                "answer_type": answer_type,
                "source": "harness/sample",
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {len(ITEMS)} items to {out}")


if __name__ == "__main__":
    main()

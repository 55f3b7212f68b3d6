"""tf.keras.preprocessing.text: ``text_to_word_sequence``, ``one_hot``/``hashing_trick``
and the ``Tokenizer`` (a vocabulary by frequency; texts to index sequences or to
binary/count/freq/tfidf matrices; its JSON form)."""

from __future__ import annotations

import collections
import hashlib
import json
from typing import Any

import numpy as np

__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence",
           "tokenizer_from_json"]

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text: str, filters: str = _FILTERS, lower: bool = True,
                          split: str = " ") -> list:
    """The words of ``input_text``: lowercased, the ``filters`` characters made
    separators, split on ``split``."""
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [i for i in input_text.split(split) if i]


def hashing_trick(text: str, n: int, hash_function: Any = None, filters: str = _FILTERS,
                  lower: bool = True, split: str = " ", analyzer: Any = None) -> list:
    """Each word hashed to an index in [1, n) (``hash``, ``"md5"`` or a function)."""
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(w: str) -> int:
            return int(hashlib.md5(w.encode()).hexdigest(), 16)
    seq = text_to_word_sequence(text, filters=filters, lower=lower, split=split) \
        if analyzer is None else analyzer(text)
    return [(hash_function(w) % (n - 1) + 1) for w in seq]


def one_hot(input_text: str, n: int, filters: str = _FILTERS, lower: bool = True,
            split: str = " ", analyzer: Any = None) -> list:
    """``hashing_trick`` with Python's ``hash``."""
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower,
                         split=split, analyzer=analyzer)


class Tokenizer:
    """Indexes the words of texts by frequency (1 the most frequent; ``oov_token`` first
    when given; 0 never a word) and turns texts into sequences or matrices of the
    ``num_words - 1`` most frequent words."""

    def __init__(self, num_words: int | None = None, filters: str = _FILTERS,
                 lower: bool = True, split: str = " ", char_level: bool = False,
                 oov_token: Any = None, analyzer: Any = None, **kwargs: Any) -> None:
        if "nb_words" in kwargs:
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts: collections.OrderedDict = collections.OrderedDict()
        self.word_docs: collections.defaultdict = collections.defaultdict(int)
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words, self.document_count = num_words, document_count
        self.char_level, self.oov_token, self.analyzer = char_level, oov_token, analyzer
        self.index_docs: collections.defaultdict = collections.defaultdict(int)
        self.word_index: dict = {}
        self.index_word: dict = {}

    def _words(self, text: Any) -> list:
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower,
                                     split=self.split)

    def fit_on_texts(self, texts: Any) -> None:
        for text in texts:
            self.document_count += 1
            seq = self._words(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        wcounts = sorted(self.word_counts.items(), key=lambda x: x[1], reverse=True)
        sorted_voc = [] if self.oov_token is None else [self.oov_token]
        sorted_voc.extend(wc[0] for wc in wcounts)
        self.word_index = dict(zip(sorted_voc, range(1, len(sorted_voc) + 1)))
        self.index_word = {c: w for w, c in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences: Any) -> None:
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts: Any) -> list:
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts: Any) -> Any:
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._words(text):
                i = self.word_index.get(w)
                if i is not None:
                    if num_words and i >= num_words:
                        if oov_index is not None:
                            vect.append(oov_index)
                    else:
                        vect.append(i)
                elif self.oov_token is not None:
                    vect.append(oov_index)
            yield vect

    def sequences_to_texts(self, sequences: Any) -> list:
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences: Any) -> Any:
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is not None:
                    if num_words and num >= num_words:
                        if oov_index is not None:
                            vect.append(self.index_word[oov_index])
                    else:
                        vect.append(word)
                elif self.oov_token is not None:
                    vect.append(self.index_word[oov_index])
            yield " ".join(vect)

    def texts_to_matrix(self, texts: Any, mode: str = "binary") -> Any:
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences: Any, mode: str = "binary") -> Any:
        """[len(sequences), num_words]: per word index 1 (binary), its count, its
        frequency in the sequence, or tf-idf."""
        if not self.num_words:
            if not self.word_index:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on "
                                 "some text data first.")
            num_words = len(self.word_index) + 1
        else:
            num_words = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts: collections.defaultdict = collections.defaultdict(int)
            for j in seq:
                if j < num_words:
                    counts[j] += 1
            for j, c in list(counts.items()):
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    tf = 1 + np.log(c)
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = tf * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def get_config(self) -> dict:
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower,
                "split": self.split, "char_level": self.char_level,
                "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts),
                "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs),
                "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """The Tokenizer ``to_json`` wrote."""
    config = json.loads(json_string).get("config")
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = word_counts
    tokenizer.word_docs = word_docs
    tokenizer.index_docs = index_docs
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer
